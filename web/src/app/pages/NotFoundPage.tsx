import { Button, Stack, Typography } from '@mui/material';
import { Link as RouterLink, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';

/** An address that is no route of the app: a 404 page with a link to the start page. */
export default function NotFoundPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <Stack spacing={2} sx={{ py: 8, px: 2, textAlign: 'center', alignItems: 'center', justifyContent: 'center' }} data-testid="not-found-page">
      <Typography variant="h2" component="p" color="text.secondary" aria-hidden>
        404
      </Typography>
      <Typography variant="h4" component="h1" data-testid="not-found-title">
        {t('notFound.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ wordBreak: 'break-all' }}>
        {t('notFound.text', { path: pathname })}
      </Typography>
      <Button variant="contained" component={RouterLink} to="/" data-testid="not-found-home">
        {t('notFound.home')}
      </Button>
    </Stack>
  );
}
