import { Paper, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useAuthenticatedSession } from '../../lib/session';
import { useAppName } from '../../lib/theme';

/** The home view for a user with no built page yet: a greeting, no made-up numbers. */
export function HomePage() {
  const { t } = useTranslation();
  const { user } = useAuthenticatedSession();
  const appName = useAppName();
  return (
    <Paper variant="outlined" sx={{ p: 4 }} data-testid="home-page">
      <Stack spacing={1}>
        <Typography variant="h5" component="h1">
          {t('home.title', { name: user.name })}
        </Typography>
        <Typography>{t('home.text', { appName })}</Typography>
        <Typography color="text.secondary">{t('home.empty')}</Typography>
      </Stack>
    </Paper>
  );
}
