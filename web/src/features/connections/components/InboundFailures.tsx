import { useState } from 'react';
import {
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import ReportProblemOutlinedIcon from '@mui/icons-material/ReportProblemOutlined';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, TableStatusRows } from '../../../components/ui';
import { useLoadMoreOnScroll } from '../../../lib/hooks/useNearBottom';
import { translateError } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { useDiscardInboundFailure, useInboundFailures, useRetryInboundFailure, type InboundFailure } from '../api/inbound-failures';
import { formatTableDate, type Connection } from '../types';
import { eventSummary } from '../utils/inbound-failures';

/** Inbound failures of the company (admins): a button with their count, shown when there are some, and their list. */
export function InboundFailures({ connections }: { connections: Connection[] }) {
  const { t } = useTranslation();
  const failures = useInboundFailures();
  const [open, setOpen] = useState(false);
  const count = failures.data?.pages[0]?.count ?? 0;
  if (count <= 0 && !open) return null;
  return (
    <>
      {count > 0 && (
        <Button variant="outlined" color="warning" startIcon={<ReportProblemOutlinedIcon />} onClick={() => setOpen(true)} data-testid="inbound-failures-open">
          {t('connections.inboundFailures.button', { count })}
        </Button>
      )}
      {open && <InboundFailuresDialog connections={connections} onClose={() => setOpen(false)} />}
    </>
  );
}

function InboundFailuresDialog({ connections, onClose }: { connections: Connection[]; onClose: () => void }) {
  const { t } = useTranslation();
  const failures = useInboundFailures();
  const retry = useRetryInboundFailure();
  const discard = useDiscardInboundFailure();
  const [toDiscard, setToDiscard] = useState<InboundFailure | null>(null);
  const onScroll = useLoadMoreOnScroll(failures);
  const rows = failures.data?.pages.flatMap((page) => page.failures) ?? [];
  const names = new Map(connections.map((c) => [c.id, c.name]));

  const runRetry = (failure: InboundFailure) =>
    retry.mutate(failure.id, {
      onSuccess: (outcome) => {
        if (outcome.delivered) toast.success(t('connections.inboundFailures.delivered'));
        else toast.error(t('connections.inboundFailures.failedAgain'));
      },
      onError: (error) => toastError(error),
    });

  const confirmDiscard = () => {
    if (!toDiscard) return;
    discard.mutate(toDiscard.id, {
      onSuccess: () => toast.success(t('connections.inboundFailures.discarded')),
      onError: (error) => toastError(error),
      onSettled: () => setToDiscard(null),
    });
  };

  return (
    <Dialog open onClose={onClose} maxWidth="lg" fullWidth data-testid="inbound-failures-dialog">
      <DialogTitle>{t('connections.inboundFailures.title')}</DialogTitle>
      <DialogContent dividers>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('connections.inboundFailures.intro')}
        </Typography>
        <TableContainer sx={{ maxHeight: '60vh' }} onScroll={onScroll}>
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('connections.inboundFailures.columns.connection')}</TableCell>
                <TableCell>{t('connections.inboundFailures.columns.when')}</TableCell>
                <TableCell>{t('connections.inboundFailures.columns.event')}</TableCell>
                <TableCell>{t('connections.inboundFailures.columns.error')}</TableCell>
                <TableCell align="center">{t('connections.inboundFailures.columns.attempts')}</TableCell>
                <TableCell align="center">{t('connections.columns.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((failure) => (
                <TableRow key={failure.id} data-testid={`inbound-failure-${failure.id}`}>
                  <TableCell>{names.get(failure.whatsappId) ?? `#${failure.whatsappId}`}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatTableDate(failure.createdAt)}</TableCell>
                  <TableCell data-testid={`inbound-failure-summary-${failure.id}`}>{eventSummary(failure.event, t)}</TableCell>
                  <TableCell data-testid={`inbound-failure-error-${failure.id}`}>
                    <Typography variant="body2">{translateError(failure.error, t)}</Typography>
                    {failure.detail && (
                      <Typography variant="caption" color="text.secondary" sx={{ wordBreak: 'break-word' }}>
                        {failure.detail}
                      </Typography>
                    )}
                  </TableCell>
                  <TableCell align="center" data-testid={`inbound-failure-attempts-${failure.id}`}>
                    {failure.attempts}
                  </TableCell>
                  <TableCell align="center">
                    <Stack direction="row" spacing={1} sx={{ justifyContent: 'center' }}>
                      <Button
                        size="small"
                        variant="outlined"
                        disabled={retry.isPending && retry.variables === failure.id}
                        onClick={() => runRetry(failure)}
                        data-testid={`inbound-failure-retry-${failure.id}`}
                      >
                        {t('connections.inboundFailures.retry')}
                      </Button>
                      <Button size="small" variant="outlined" color="error" onClick={() => setToDiscard(failure)} data-testid={`inbound-failure-discard-${failure.id}`}>
                        {t('connections.inboundFailures.discard')}
                      </Button>
                    </Stack>
                  </TableCell>
                </TableRow>
              ))}
              <TableStatusRows query={failures} rowCount={rows.length} empty={t('connections.inboundFailures.empty')} colSpan={6} testId="inbound-failures" />
            </TableBody>
          </Table>
          {(failures.isPending || failures.isFetchingNextPage) && (
            <Box sx={{ display: 'flex', justifyContent: 'center', p: 1 }}>
              <CircularProgress size={20} />
            </Box>
          )}
        </TableContainer>
        {failures.hasNextPage && !failures.isFetchingNextPage && (
          <Box sx={{ display: 'flex', justifyContent: 'center', mt: 1 }}>
            <Button onClick={() => void failures.fetchNextPage()} data-testid="inbound-failures-more">
              {t('connections.inboundFailures.loadMore')}
            </Button>
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="inbound-failures-close">
          {t('common.close')}
        </Button>
      </DialogActions>
      <ConfirmDialog
        open={!!toDiscard}
        title={t('connections.inboundFailures.discardTitle')}
        onClose={() => setToDiscard(null)}
        onConfirm={confirmDiscard}
        confirmLabel={t('connections.inboundFailures.discard')}
        busy={discard.isPending}
        testId="inbound-failures-discard-dialog"
      >
        {t('connections.inboundFailures.discardText')}
      </ConfirmDialog>
    </Dialog>
  );
}
