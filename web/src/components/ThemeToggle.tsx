import { IconButton } from '@mui/material';
import DarkModeIcon from '@mui/icons-material/DarkMode';
import LightModeIcon from '@mui/icons-material/LightMode';
import { useTranslation } from 'react-i18next';
import { toggleThemeMode, useThemeMode } from '../lib/theme';
import { Tooltip } from './Tooltip';

/** Light/dark switch; the choice is kept in localStorage `preferredTheme`. */
export function ThemeToggle({ color = 'inherit' }: { color?: 'inherit' | 'default' | 'primary' }) {
  const { t } = useTranslation();
  const mode = useThemeMode();
  return (
    <Tooltip title={t('theme.toggle')}>
      <IconButton color={color} onClick={toggleThemeMode} aria-label={t('theme.toggle')} data-testid="theme-toggle" data-mode={mode}>
        {mode === 'dark' ? <LightModeIcon /> : <DarkModeIcon />}
      </IconButton>
    </Tooltip>
  );
}
