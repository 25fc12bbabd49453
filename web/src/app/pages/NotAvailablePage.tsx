import { Button, Stack, Typography } from '@mui/material';
import ConstructionIcon from '@mui/icons-material/Construction';
import { Link as RouterLink } from 'react-router';
import { useTranslation } from 'react-i18next';

/**
 * A route of the spec whose page is not built in this version (see `PLANNED_ROUTES`): said
 * plainly, with a way back, instead of a silent redirect. Such pages have no menu entry.
 */
export default function NotAvailablePage() {
  const { t } = useTranslation();
  return (
    <Stack spacing={2} sx={{ py: 8, px: 2, textAlign: 'center', alignItems: 'center', justifyContent: 'center' }} data-testid="not-available-page">
      <ConstructionIcon color="action" sx={{ fontSize: 64 }} />
      <Typography variant="h4" component="h1" data-testid="not-available-title">
        {t('notAvailable.title')}
      </Typography>
      <Typography color="text.secondary">{t('notAvailable.text')}</Typography>
      <Button variant="contained" component={RouterLink} to="/" data-testid="not-available-home">
        {t('notAvailable.home')}
      </Button>
    </Stack>
  );
}
