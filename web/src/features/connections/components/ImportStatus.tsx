/**
 * Old-message import on the connections page (spec 2 "Import status"): the live progress cards,
 * the "preparing" and "importing" marks of a connection's row, and the button that closes the
 * imported tickets once an import ended with them open.
 */
import { useEffect, useState } from 'react';
import { Box, Button, Chip, CircularProgress, LinearProgress, Paper, Stack, Typography } from '@mui/material';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import { useTranslation } from 'react-i18next';
import { toast, toastError } from '../../../lib/toast';
import { useCloseImportedTickets } from '../api/import-messages';
import { IMPORT_CLOSE_TICKETS, IMPORT_RUNNING, formatTableDate, importPreparingUntil, type Connection } from '../types';
import { importPercent, type ImportProgress } from '../utils/import-messages';

/** One card per import in progress: "Preparing" while nothing is written yet, else done/total, the date reached and the percentage. */
export function ImportProgressCards({ progress, connections }: { progress: ImportProgress[]; connections: Connection[] }) {
  const { t } = useTranslation();
  if (progress.length === 0) return null;
  return (
    <Stack spacing={1} data-testid="connections-import-progress">
      {progress.map((report) => {
        const id = report.whatsappId;
        const name = connections.find((c) => c.id === id)?.name ?? t('connections.import.connectionNumber', { id });
        const preparing = report.done < 0;
        const percent = importPercent(report);
        const date = formatTableDate(report.date);
        return (
          <Paper key={id} variant="outlined" sx={{ p: 2 }} data-testid={`connections-import-card-${id}`}>
            <Stack spacing={1}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'baseline', justifyContent: 'space-between', flexWrap: 'wrap', rowGap: 0.5 }}>
                <Typography variant="subtitle2">{t('connections.import.cardTitle', { name })}</Typography>
                {preparing ? (
                  <Typography variant="body2" color="text.secondary" data-testid={`connections-import-card-${id}-state`}>
                    {t('connections.import.preparing')}
                  </Typography>
                ) : (
                  <Typography variant="body2" data-testid={`connections-import-card-${id}-state`}>
                    {t('connections.import.counts', { done: report.done, total: report.total })}
                    {' · '}
                    <span data-testid={`connections-import-card-${id}-percent`}>{`${percent}%`}</span>
                  </Typography>
                )}
              </Stack>
              {preparing ? (
                <LinearProgress aria-label={t('connections.import.preparing')} />
              ) : (
                <LinearProgress variant="determinate" value={percent} aria-label={t('connections.import.cardTitle', { name })} />
              )}
              {!preparing && date && (
                <Typography variant="caption" color="text.secondary" data-testid={`connections-import-card-${id}-date`}>
                  {t('connections.import.lastDate', { date })}
                </Typography>
              )}
            </Stack>
          </Paper>
        );
      })}
    </Stack>
  );
}

/**
 * "Preparing the import" until `until` (the last history chunk's time plus the window); keyed by
 * that time, so a newer chunk shows it afresh.
 */
function PreparingChip({ connectionId, until }: { connectionId: number; until: number }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const left = until - Date.now();
    if (left <= 0) return;
    const timer = setTimeout(() => setNow(Date.now()), left);
    return () => clearTimeout(timer);
  }, [until]);
  if (now >= until) return null;
  return (
    <Chip
      size="small"
      color="info"
      variant="outlined"
      icon={<CircularProgress size={12} />}
      label={t('connections.import.preparingChip')}
      sx={{ mt: 0.5 }}
      data-testid={`connections-import-preparing-${connectionId}`}
    />
  );
}

/** The import's mark under a connection's status: preparing (a recent history chunk) or importing. */
export function ImportRowStatus({ connection }: { connection: Connection }) {
  const { t } = useTranslation();
  const until = importPreparingUntil(connection);
  if (until !== null) return <PreparingChip key={until} connectionId={connection.id} until={until} />;
  if (connection.statusImportMessages === IMPORT_RUNNING) {
    return (
      <Box>
        <Chip size="small" color="info" variant="outlined" label={t('connections.import.runningChip')} sx={{ mt: 0.5 }} data-testid={`connections-import-running-${connection.id}`} />
      </Box>
    );
  }
  return null;
}

/** Closes the imported tickets still open once the import ended (`statusImportMessages` renderButtonCloseTickets). */
export function CloseImportedButton({ connection, disabled }: { connection: Connection; disabled?: boolean }) {
  const { t } = useTranslation();
  const close = useCloseImportedTickets();
  if (connection.statusImportMessages !== IMPORT_CLOSE_TICKETS) return null;
  const id = connection.id;
  return (
    <Button
      size="small"
      variant="outlined"
      color="warning"
      startIcon={close.isPending ? <CircularProgress size={14} /> : <DoneAllIcon />}
      disabled={disabled || close.isPending}
      onClick={() =>
        close.mutate(id, {
          onSuccess: (closed) => toast.success(t('connections.import.closed', { closed })),
          onError: (error) => toastError(error),
        })
      }
      data-testid={`connections-close-imported-${id}`}
    >
      {t('connections.import.closeTickets')}
    </Button>
  );
}
