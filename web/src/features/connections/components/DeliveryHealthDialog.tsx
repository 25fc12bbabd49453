import {
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItemButton,
  ListItemText,
  Stack,
  Typography,
} from '@mui/material';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { translateError } from '../../../lib/i18n/errors';
import { toastError } from '../../../lib/toast';
import { getTicketUuid, useDeliveryHealth, type UndeliveredMessage } from '../api/delivery-health';
import { formatTableDate, type Connection } from '../types';

/** How much of a message's text a row shows (on one line, cut shorter by the width if need be). */
const HEALTH_TEXT_MAX = 80;

/** The text on one line, cut at `max` characters with an ellipsis. */
function shortText(text: string, max = HEALTH_TEXT_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

interface Props {
  connection: Pick<Connection, 'id' | 'name'>;
  onClose: () => void;
}

/**
 * A connection's delivery health (docs/channels.md "Delivery assurance"): how many of its messages
 * of the last 24 hours WhatsApp took but no phone confirmed, and the newest of them; each opens its
 * ticket (looked up by id for the uuid of the ticket page's address).
 */
export function DeliveryHealthDialog({ connection, onClose }: Props) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const health = useDeliveryHealth(connection.id);
  const openTicket = useMutation({ mutationFn: (message: UndeliveredMessage) => getTicketUuid(message.ticketId) });

  const open = (message: UndeliveredMessage) =>
    openTicket.mutate(message, {
      onSuccess: (uuid) => {
        onClose();
        navigate(`/tickets/${uuid}`);
      },
      onError: (error) => toastError(error),
    });

  const data = health.data;
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth data-testid="delivery-health-dialog">
      <DialogTitle>{t('connections.deliveryHealth.title', { name: connection.name })}</DialogTitle>
      <DialogContent dividers>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('connections.deliveryHealth.intro')}
        </Typography>
        {health.isPending && (
          <Box sx={{ display: 'flex', justifyContent: 'center', p: 2 }} data-testid="delivery-health-loading">
            <CircularProgress size={24} aria-label={t('common.loading')} />
          </Box>
        )}
        {health.isError && (
          <Typography color="error" data-testid="delivery-health-error">
            {translateError(health.error, t)}
          </Typography>
        )}
        {data && data.undelivered <= 0 && (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} data-testid="delivery-health-empty">
            <CheckCircleOutlineIcon color="success" />
            <Typography>{t('connections.deliveryHealth.empty')}</Typography>
          </Stack>
        )}
        {data && data.undelivered > 0 && (
          <>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <WarningAmberIcon color="warning" />
              <Typography sx={{ fontWeight: 600 }} data-testid="delivery-health-count">
                {t('connections.deliveryHealth.count', { count: data.undelivered })}
              </Typography>
            </Stack>
            {data.messages.length < data.undelivered && (
              <Typography variant="caption" color="text.secondary" component="div" data-testid="delivery-health-newest">
                {t('connections.deliveryHealth.newest', { shown: data.messages.length })}
              </Typography>
            )}
            <List dense data-testid="delivery-health-list">
              {data.messages.map((message) => (
                <ListItemButton
                  key={message.id}
                  onClick={() => open(message)}
                  disabled={openTicket.isPending}
                  aria-label={t('connections.deliveryHealth.openTicket', { name: message.contactName })}
                  data-testid={`delivery-health-message-${message.id}`}
                  data-ticket={message.ticketId}
                >
                  <ListItemText
                    primary={message.contactName || t('connections.deliveryHealth.noContact')}
                    secondary={message.body.trim() ? shortText(message.body) : t('connections.deliveryHealth.noText')}
                    slotProps={{ secondary: { noWrap: true, title: message.body } }}
                    sx={{ minWidth: 0 }}
                  />
                  <Typography variant="caption" color="text.secondary" sx={{ ml: 2, whiteSpace: 'nowrap' }} data-testid={`delivery-health-time-${message.id}`}>
                    {formatTableDate(message.createdAt)}
                  </Typography>
                  {openTicket.isPending && openTicket.variables?.id === message.id ? (
                    <CircularProgress size={16} sx={{ ml: 1 }} />
                  ) : (
                    <OpenInNewIcon fontSize="small" color="action" sx={{ ml: 1 }} />
                  )}
                </ListItemButton>
              ))}
            </List>
          </>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="delivery-health-close">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
