/**
 * Gaps after an outage on the connections page (docs/channels.md "Gaps after an outage"): since
 * when a connection is down, and its last gap (messages may be missing between two times) with
 * where its check stands, until someone who manages connections dismisses it.
 */
import { Chip, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { useTranslation } from 'react-i18next';
import { toastError } from '../../../lib/toast';
import { useDismissGap } from '../api/gaps';
import { formatTableDate, type Connection } from '../types';

/** "Down since {date}", beside the status, while the connection is down. */
export function DownSince({ connection }: { connection: Pick<Connection, 'id' | 'downSince'> }) {
  const { t } = useTranslation();
  const date = formatTableDate(connection.downSince);
  if (!date) return null;
  return (
    <Typography variant="caption" color="error" data-testid={`connections-down-${connection.id}`}>
      {t('connections.gaps.downSince', { date })}
    </Typography>
  );
}

/**
 * The connection's last gap under its status: the interval, then "checking…" while its check
 * waits or runs, "waiting for the phone until {time}" once it asked the phone, or how many
 * conversations were asked from the phone and how many got the notice;
 * a button hides it (`DELETE /whatsapp/{id}/gap`) for the users who may.
 */
export function GapRowStatus({ connection, canDismiss }: { connection: Pick<Connection, 'id' | 'lastGap'>; canDismiss: boolean }) {
  const { t } = useTranslation();
  const dismiss = useDismissGap();
  const gap = connection.lastGap;
  if (!gap) return null;
  const id = connection.id;
  const from = formatTableDate(gap.from);
  const to = formatTableDate(gap.to);
  const progress =
    gap.state === 'checked'
      ? t('connections.gaps.checked', { fetched: gap.fetched, noted: gap.noted })
      : gap.state === 'asked'
        ? t('connections.gaps.asked', { fetched: gap.fetched, time: formatTableDate(gap.answerBy) })
        : t('connections.gaps.checking');
  return (
    <Stack spacing={0.25} sx={{ alignItems: 'center', mt: 0.5 }} data-testid={`connections-gap-${id}`} data-state={gap.state}>
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', justifyContent: 'center' }}>
        <Chip
          size="small"
          color="warning"
          variant="outlined"
          icon={<WarningAmberIcon />}
          label={t('connections.gaps.missing', { from, to })}
          sx={{ height: 'auto', py: 0.25, '& .MuiChip-label': { whiteSpace: 'normal' } }}
          data-testid={`connections-gap-interval-${id}`}
        />
        {canDismiss && (
          <Tooltip title={t('connections.gaps.dismiss')}>
            <span>
              <IconButton
                size="small"
                aria-label={t('connections.gaps.dismiss')}
                disabled={dismiss.isPending}
                onClick={() => dismiss.mutate(id, { onError: (error) => void toastError(error) })}
                data-testid={`connections-gap-dismiss-${id}`}
              >
                <CloseIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
        )}
      </Stack>
      <Typography variant="caption" color="text.secondary" data-testid={`connections-gap-state-${id}`}>
        {progress}
      </Typography>
    </Stack>
  );
}

