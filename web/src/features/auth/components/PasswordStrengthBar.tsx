import { Box, LinearProgress, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useRules } from '../../../lib/wasm/useRules';

const COLORS = { weak: 'error', medium: 'warning', strong: 'success' } as const;

/** The strength the core gives `password` (through WASM); shows once the module is in. */
export function PasswordStrengthBar({ password }: { password: string }) {
  const { t } = useTranslation();
  const rules = useRules();
  if (!rules) return null;
  const { score, label } = rules.passwordStrength(password);
  // Nothing typed yet: an empty neutral bar and no verdict (an empty field is not "weak").
  const empty = password.length === 0;
  return (
    <Box sx={{ mt: 1 }} data-testid="password-strength" data-score={score} data-label={empty ? 'empty' : label}>
      <LinearProgress
        variant="determinate"
        value={empty ? 0 : (score / 5) * 100}
        color={empty ? 'inherit' : COLORS[label]}
        aria-label={t('passwordStrength.label')}
        sx={{ height: 6, borderRadius: 3, ...(empty ? { color: 'action.disabledBackground' } : {}) }}
      />
      <Typography variant="caption" color="text.secondary">
        {empty ? t('passwordStrength.label') : `${t('passwordStrength.label')}: ${t(`passwordStrength.${label}`)}`}
      </Typography>
    </Box>
  );
}
