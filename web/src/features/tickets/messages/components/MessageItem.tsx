import { memo, useState } from 'react';
import { Box, Button, Chip, CircularProgress, IconButton, Menu, MenuItem, Stack, Typography, useTheme } from '@mui/material';
import AccessTimeIcon from '@mui/icons-material/AccessTime';
import DoneIcon from '@mui/icons-material/Done';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import MicIcon from '@mui/icons-material/Mic';
import PhoneMissedIcon from '@mui/icons-material/PhoneMissed';
import RefreshIcon from '@mui/icons-material/Refresh';
import ReportProblemOutlinedIcon from '@mui/icons-material/ReportProblemOutlined';
import SyncProblemIcon from '@mui/icons-material/SyncProblem';
import { useTranslation } from 'react-i18next';
import { isKnownErrorCode } from '../../../../lib/i18n/errors';
import { toastError } from '../../../../lib/toast';
import { useRetryMessageMedia } from '../api/messages';
import { canDeleteMessage, canEditMessage, type Message } from '../types';
import { ackState, gapNoticeText, REACTIONS, timeOf } from '../format';
import { bubbleColors } from '../bubble';
import { FormattedText } from '../../../../components/FormattedText';
import { MessageMedia } from './MessageMedia';
import { DeliveryIssueIndicator } from './DeliveryIssueIndicator';

export type MessageCommand = 'reply' | 'forward' | 'edit' | 'delete' | 'react';

/** Acknowledgement icon: 0 clock, 1 sent, 2 delivered, 3 and 4 read (audio: played), 5 read. */
function AckIcon({ ack, mediaType }: { ack: number; mediaType: string }) {
  const { t } = useTranslation();
  const state = ackState(ack, mediaType);
  const label: string = t(`messages.ack.${state}`);
  const common = { fontSize: 'inherit' as const, 'aria-label': label, 'data-testid': 'message-ack', 'data-ack': String(ack), 'data-state': state };
  switch (state) {
    case 'clock':
      return <AccessTimeIcon {...common} />;
    case 'sent':
      return <DoneIcon {...common} />;
    case 'delivered':
      return <DoneAllIcon {...common} />;
    case 'played':
      return <MicIcon {...common} sx={{ color: '#4fc3f7' }} />;
    case 'read':
      return <DoneAllIcon {...common} sx={{ color: '#4fc3f7' }} />;
  }
}

/**
 * A received attachment that could not be downloaded (`mediaError`): the translated error and a
 * button that downloads it again; the answer replaces the message, a failure shows as a toast.
 */
function MediaErrorNotice({ message, ticketUuid }: { message: Message; ticketUuid: string }) {
  const { t } = useTranslation();
  const retry = useRetryMessageMedia(ticketUuid);
  const code = message.mediaError;
  const text = isKnownErrorCode(code) ? t(`errors.${code}`) : t('messages.mediaError');
  return (
    <Stack direction="row" spacing={0.75} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 0.5 }} data-testid={`message-media-error-${message.id}`}>
      <ReportProblemOutlinedIcon fontSize="small" color="warning" />
      <Typography variant="caption" sx={{ flex: '1 1 140px', fontStyle: 'italic' }} data-testid={`message-media-error-text-${message.id}`}>
        {text}
      </Typography>
      <Button
        size="small"
        variant="outlined"
        disabled={retry.isPending}
        aria-busy={retry.isPending}
        startIcon={retry.isPending ? <CircularProgress size={14} color="inherit" /> : <RefreshIcon />}
        onClick={() => retry.mutate(message.id, { onError: (error) => void toastError(error) })}
        data-testid={`message-media-retry-${message.id}`}
      >
        {t('messages.mediaRetry')}
      </Button>
    </Stack>
  );
}

interface Props {
  message: Message;
  /** The ticket's uuid: the key of its loaded messages, which a retried download updates. */
  ticketUuid: string;
  userId: number;
  /** The ticket is a Facebook or Instagram conversation: contact messages carry the 24-hour notice. */
  social?: boolean;
  onCommand: (command: MessageCommand, message: Message, emoji?: string) => void;
}

/** One message bubble (spec 1 "Ticket view"). */
export const MessageItem = memo(function MessageItem({ message, ticketUuid, userId, social, onCommand }: Props) {
  const { t } = useTranslation();
  const mode = useTheme().palette.mode;
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [reactAnchor, setReactAnchor] = useState<HTMLElement | null>(null);

  if (message.mediaType === 'call_log') {
    return (
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'center', alignItems: 'center', my: 1, color: 'text.secondary' }} data-testid={`message-${message.id}`} data-kind="call_log">
        <PhoneMissedIcon fontSize="small" color="error" />
        <Typography variant="caption">{t('messages.callLog', { time: timeOf(message.createdAt) })}</Typography>
      </Stack>
    );
  }

  if (message.mediaType === 'gap') {
    // A gap after an outage: a line of the conversation, not a message to answer.
    return (
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'center', alignItems: 'center', my: 1, px: 2, color: 'text.secondary' }} data-testid={`message-${message.id}`} data-kind="gap">
        <SyncProblemIcon fontSize="small" color="warning" />
        <Typography variant="caption" sx={{ textAlign: 'center' }} data-testid={`message-gap-${message.id}`}>
          {gapNoticeText(message.body, t)}
        </Typography>
      </Stack>
    );
  }

  const own = message.fromMe;
  const editable = canEditMessage(message, userId);
  const deletable = canDeleteMessage(message, userId);
  const colors = bubbleColors(mode, message.isPrivate ? 'private' : own ? 'own' : 'contact');
  const choose = (command: MessageCommand) => {
    setAnchor(null);
    if (command === 'react') return;
    onCommand(command, message);
  };

  return (
    <Box sx={{ display: 'flex', justifyContent: own ? 'flex-end' : 'flex-start', my: 0.5 }} data-testid={`message-${message.id}`} data-private={message.isPrivate ? 'true' : 'false'}>
      <Box
        sx={{
          position: 'relative',
          maxWidth: '75%',
          minWidth: 100,
          bgcolor: colors.background,
          color: colors.text,
          borderRadius: 2,
          px: 1.25,
          py: 0.75,
          pr: 3.5,
          boxShadow: 1,
          border: message.isPrivate ? `1px dashed ${colors.accent}` : undefined,
        }}
      >
        {!message.isDeleted && (
          <IconButton size="small" onClick={(e) => setAnchor(e.currentTarget)} aria-label={t('messages.options')} data-testid={`message-menu-${message.id}`} sx={{ position: 'absolute', top: 0, right: 0, p: 0.25, color: colors.meta }}>
            <ExpandMoreIcon fontSize="small" />
          </IconButton>
        )}
        {message.isPrivate && (
          <Typography variant="caption" sx={{ fontWeight: 700, display: 'block', color: colors.accent }}>
            {t('messages.privateNote')}
          </Typography>
        )}
        {message.participant && !own && (
          <Typography variant="caption" sx={{ fontWeight: 700, display: 'block' }}>
            {message.participant}
          </Typography>
        )}
        {message.isForwarded && (
          <Typography variant="caption" sx={{ fontStyle: 'italic', display: 'block', color: colors.meta }}>
            {t('messages.forwarded')}
          </Typography>
        )}
        {message.quotedMsg && (
          <Box sx={{ borderLeft: '4px solid', borderColor: message.quotedMsg.fromMe ? 'success.main' : 'primary.main', bgcolor: colors.quote, px: 1, py: 0.5, mb: 0.5, borderRadius: 1 }} data-testid={`message-quoted-${message.id}`}>
            <Typography variant="caption" component="div" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {message.quotedMsg.isDeleted ? t('messages.deletedQuoted') : <FormattedText text={message.quotedMsg.body} links={false} />}
            </Typography>
          </Box>
        )}
        {message.isDeleted ? (
          <Typography variant="body2" sx={{ fontStyle: 'italic', color: colors.meta }} data-testid={`message-deleted-${message.id}`}>
            {own ? t('messages.deletedOwn') : t('messages.deletedByContact')}
          </Typography>
        ) : (
          <>
            {message.mediaError ? (
              <MediaErrorNotice message={message} ticketUuid={ticketUuid} />
            ) : (
              message.mediaUrl && ['image', 'video', 'audio', 'application'].includes(message.mediaType) && <MessageMedia message={message} />
            )}
            {message.body && !(message.mediaType === 'audio' && message.mediaUrl) && (
              <Typography variant="body2" component="div" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid={`message-body-${message.id}`}>
                {message.mediaType === 'contactMessage' ? `👤 ${message.body}` : <FormattedText text={message.body} />}
              </Typography>
            )}
          </>
        )}
        <Stack direction="row" spacing={0.5} sx={{ justifyContent: 'flex-end', alignItems: 'center', fontSize: 14, color: colors.meta }}>
          {message.isEdited && !message.isDeleted && <Typography variant="caption">{t('messages.edited')}</Typography>}
          <Typography variant="caption">{timeOf(message.createdAt)}</Typography>
          {own && !message.isPrivate && <AckIcon ack={message.ack} mediaType={message.mediaType} />}
          {own && !message.isPrivate && <DeliveryIssueIndicator message={message} />}
        </Stack>
        {social && !own && !message.isPrivate && (
          <Typography variant="caption" color="warning.main" sx={{ display: 'block', fontStyle: 'italic' }} data-testid={`message-24h-${message.id}`}>
            {t('messages.reply24h')}
          </Typography>
        )}
        {message.reactions.length > 0 && (
          <Stack direction="row" spacing={0.5} sx={{ position: 'absolute', bottom: -14, left: 8 }} data-testid={`message-reactions-${message.id}`}>
            {message.reactions.map((reaction, i) => (
              <Chip key={i} size="small" label={reaction.emoji} sx={{ height: 20, bgcolor: 'background.paper' }} />
            ))}
          </Stack>
        )}
      </Box>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        <MenuItem onClick={() => choose('reply')} data-testid="message-action-reply">{t('messages.actions.reply')}</MenuItem>
        <MenuItem
          onClick={(e) => {
            setReactAnchor(e.currentTarget);
            setAnchor(null);
          }}
          data-testid="message-action-react"
        >
          {t('messages.actions.react')}
        </MenuItem>
        {!message.isPrivate && <MenuItem onClick={() => choose('forward')} data-testid="message-action-forward">{t('messages.actions.forward')}</MenuItem>}
        {editable && <MenuItem onClick={() => choose('edit')} data-testid="message-action-edit">{t('messages.actions.edit')}</MenuItem>}
        {deletable && <MenuItem onClick={() => choose('delete')} data-testid="message-action-delete">{t('messages.actions.delete')}</MenuItem>}
      </Menu>
      <Menu anchorEl={reactAnchor} open={reactAnchor !== null} onClose={() => setReactAnchor(null)}>
        <Stack direction="row" sx={{ px: 1 }}>
          {REACTIONS.map((emoji) => (
            <IconButton
              key={emoji}
              onClick={() => {
                setReactAnchor(null);
                onCommand('react', message, emoji);
              }}
              data-testid={`message-react-${emoji}`}
            >
              {emoji}
            </IconButton>
          ))}
        </Stack>
      </Menu>
    </Box>
  );
});
