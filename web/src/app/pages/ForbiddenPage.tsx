import { Button, Stack, Typography } from '@mui/material';
import BlockIcon from '@mui/icons-material/Block';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';

/** The 403 page (spec 1 §2): "Oops! Acesso Negado!" with Voltar → /tickets. */
export function ForbiddenPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Stack spacing={2} sx={{ py: 8, textAlign: 'center', alignItems: 'center', justifyContent: 'center' }} data-testid="forbidden-page">
      <BlockIcon color="error" sx={{ fontSize: 64 }} />
      <Typography variant="h4" component="h1" data-testid="forbidden-title">
        {t('forbidden.title')}
      </Typography>
      <Typography color="text.secondary">{t('forbidden.text')}</Typography>
      <Button variant="contained" onClick={() => navigate('/tickets')} data-testid="forbidden-back">
        {t('forbidden.back')}
      </Button>
    </Stack>
  );
}
