import { useEffect, useRef, useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, LinearProgress, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toastError } from '../../../lib/toast';
import { userOptionsQuery } from '../../../lib/lookups/options';
import { buildTicketPdf, downloadBlob, exportLabels, loadAllMessages, pdfFileName, type ExportProgress } from '../export/exportTicket';
import type { Ticket } from '../types';

interface Props {
  /** The ticket to export, as it was when the export was asked for. */
  ticket: Ticket;
  onClose: () => void;
}

/**
 * Export to PDF (spec 1 "Dialogs"): loads every message of the ticket with a progress bar, then
 * builds the PDF in the browser and downloads `ticket-<id>.pdf`. Cancel stops the loading.
 * Mounted for one export: the export starts when the dialog appears and ends with it.
 */
export function ExportPdfDialog({ ticket, onClose }: Props) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<ExportProgress>({ loaded: 0, total: null });
  const [building, setBuilding] = useState(false);
  const [target] = useState(ticket);
  const latest = useRef({ t, onClose });
  useEffect(() => {
    latest.current = { t, onClose };
  });

  useEffect(() => {
    const ticket = target;
    const controller = new AbortController();
    const run = async () => {
      const [messages, users] = await Promise.all([
        loadAllMessages(ticket.uuid, (p) => !controller.signal.aborted && setProgress(p), controller.signal),
        queryClient.fetchQuery(userOptionsQuery),
      ]);
      if (controller.signal.aborted) return;
      setBuilding(true);
      const blob = await buildTicketPdf(
        { ticket, messages, users: new Map(users.map((u) => [u.id, u.name])), exportedAt: new Date() },
        exportLabels(latest.current.t, ticket.id),
      );
      if (controller.signal.aborted) return;
      downloadBlob(blob, pdfFileName(ticket.id));
      latest.current.onClose();
    };
    run().catch((error: unknown) => {
      if (controller.signal.aborted) return;
      toastError(error);
      latest.current.onClose();
    });
    return () => controller.abort();
  }, [target, queryClient]);

  const percent = progress.total ? Math.min(100, (progress.loaded / progress.total) * 100) : undefined;
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs" data-testid="export-pdf-dialog">
      <DialogTitle>{t('tickets.pdf.dialogTitle', { id: target.id })}</DialogTitle>
      <DialogContent>
        <Typography variant="body2" sx={{ mb: 1 }} data-testid="export-pdf-progress" data-loaded={progress.loaded}>
          {building
            ? t('tickets.pdf.building')
            : progress.total !== null
              ? t('tickets.pdf.loadingOf', { loaded: progress.loaded, total: progress.total })
              : t('tickets.pdf.loading', { loaded: progress.loaded })}
        </Typography>
        <LinearProgress variant={building || percent === undefined ? 'indeterminate' : 'determinate'} value={percent} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="export-pdf-cancel">
          {t('common.cancel')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
