import { Box, Button, Container, Paper, Stack, Typography } from '@mui/material';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format';
import { logout, useAuthenticatedSession } from '../../lib/session';

/** /financeiro-aberto: where an expired subscription leads (the user stays signed in). */
export default function SubscriptionExpiredPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { subscription } = useAuthenticatedSession();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', bgcolor: 'background.default' }}>
      <Container maxWidth="sm">
        <Paper sx={{ p: 4 }} data-testid="subscription-expired-page">
          <Stack spacing={2}>
            <Typography variant="h5" component="h1">
              {t('subscription.expiredTitle')}
            </Typography>
            <Typography>{t('subscription.expiredText')}</Typography>
            {subscription.dueDate && (
              <Typography color="text.secondary">{t('subscription.expiredToast', { date: formatDate(subscription.dueDate) })}</Typography>
            )}
            <Button
              variant="contained"
              data-testid="subscription-expired-logout"
              onClick={async () => {
                await logout();
                navigate('/login', { replace: true });
              }}
            >
              {t('subscription.logout')}
            </Button>
          </Stack>
        </Paper>
      </Container>
    </Box>
  );
}
