import { useState } from 'react';
import { IconButton, ListItemText, Menu, MenuItem } from '@mui/material';
import TranslateIcon from '@mui/icons-material/Translate';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, currentLanguage, setLanguage } from '../lib/i18n';
import { Tooltip } from './Tooltip';

/** Language menu (pt, en, es, tr); the choice is kept in localStorage. */
export function LanguageSwitcher({ color = 'inherit' }: { color?: 'inherit' | 'default' | 'primary' }) {
  const { t, i18n } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const active = currentLanguage();
  return (
    <>
      <Tooltip title={t('language.label')}>
        <IconButton
          color={color}
          onClick={(event) => setAnchor(event.currentTarget)}
          aria-label={t('language.label')}
          data-testid="language-switcher"
          data-language={i18n.resolvedLanguage}
        >
          <TranslateIcon />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {LANGUAGES.map((language) => (
          <MenuItem
            key={language}
            selected={language === active}
            data-testid={`language-option-${language}`}
            onClick={() => {
              setAnchor(null);
              void setLanguage(language);
            }}
          >
            <ListItemText>{t(`language.${language}`)}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
