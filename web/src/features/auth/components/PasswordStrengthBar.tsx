import { Box, LinearProgress, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { passwordScore, strengthLabel } from '../utils/password-strength';

const COLORS = { weak: 'error', medium: 'warning', strong: 'success' } as const;

export function PasswordStrengthBar({ password }: { password: string }) {
  const { t } = useTranslation();
  const score = passwordScore(password);
  const label = strengthLabel(score);
  return (
    <Box sx={{ mt: 1 }} data-testid="password-strength" data-score={score} data-label={label}>
      <LinearProgress
        variant="determinate"
        value={(score / 5) * 100}
        color={COLORS[label]}
        aria-label={t('passwordStrength.label')}
        sx={{ height: 6, borderRadius: 3 }}
      />
      <Typography variant="caption" color="text.secondary">
        {t('passwordStrength.label')}: {t(`passwordStrength.${label}`)}
      </Typography>
    </Box>
  );
}
