import { useState } from 'react';
import { Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/ui';
import { useAuthenticatedSession } from '../../../lib/session';
import { toastError } from '../../../lib/toast';
import { messagesKeys, sendMessage, upsertMessage, type MessagesData } from '../messages/api/messages';
import { meetingLink } from '../meeting';
import type { Ticket } from '../types';

interface Props {
  /** The ticket to invite to a meeting; null keeps the dialog closed. */
  ticket: Ticket | null;
  onClose: () => void;
}

/**
 * The meeting link action: after confirmation, sends the ticket's video-meeting link to the
 * contact as a message (`POST /messages/{ticketId}`); it shows in the conversation at once.
 */
export function MeetingLinkDialog({ ticket, onClose }: Props) {
  const { t } = useTranslation();
  const { user } = useAuthenticatedSession();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const link = ticket ? meetingLink(ticket.companyId ?? user.companyId, ticket.uuid) : '';

  const send = async () => {
    if (!ticket || busy) return;
    setBusy(true);
    try {
      const sent = await sendMessage(ticket.id, { body: t('tickets.meeting.message', { link }) });
      for (const message of Array.isArray(sent) ? sent : [sent]) {
        queryClient.setQueryData<MessagesData>(messagesKeys.ticket(ticket.uuid), (data) => upsertMessage(data, message));
      }
      onClose();
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ConfirmDialog
      open={ticket !== null}
      title={t('tickets.meeting.title')}
      onClose={onClose}
      onConfirm={() => void send()}
      confirmLabel={t('tickets.meeting.send')}
      busy={busy}
      testId="meeting-dialog"
    >
      {t('tickets.meeting.confirm')}
      <Typography component="span" variant="body2" sx={{ display: 'block', mt: 1, wordBreak: 'break-all' }} data-testid="meeting-link">
        {link}
      </Typography>
    </ConfirmDialog>
  );
}
