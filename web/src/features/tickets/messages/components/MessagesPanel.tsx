/**
 * The conversation of a ticket view: message list, input and the message dialogs (media preview,
 * forward, send contact, delete confirmation). Sending goes through `POST /messages/{ticketId}`;
 * what the server returns is put in the list at once (the live event then finds it there).
 */
import { useId, useState, type ElementType, type KeyboardEvent } from 'react';
import { Box, IconButton, ListItemIcon, ListItemText, Menu, MenuItem, Paper, Stack, TextField, Tooltip, Typography, type SvgIconProps } from '@mui/material';
import AddCircleOutlineIcon from '@mui/icons-material/AddCircleOutlineOutlined';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import CloseIcon from '@mui/icons-material/Close';
import ContactPageIcon from '@mui/icons-material/ContactPage';
import DrawIcon from '@mui/icons-material/Draw';
import LockIcon from '@mui/icons-material/Lock';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import PhotoCameraIcon from '@mui/icons-material/PhotoCamera';
import SendIcon from '@mui/icons-material/Send';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../../components/ui';
import { splitToFit } from '../../../../lib/layout/overflow';
import { useElementWidth } from '../../../../lib/layout/useElementWidth';
import { useAuthenticatedSession } from '../../../../lib/session';
import { toast, toastError } from '../../../../lib/toast';
import {
  deleteMessage,
  editMessage,
  forwardMessage,
  messagesKeys,
  reactToMessage,
  sendMedia,
  sendMessage,
  upsertMessage,
  type MessagesData,
  type SendBody,
} from '../api/messages';
import { matchingAnswers, quickAnswerFile, useQuickAnswers, type QuickAnswer } from '../api/quick-answers';
import { INPUT_TOOLS, TOOL_WIDTH, toolsRoom, type InputTool } from '../layout';
import { canEditMessage, type Message, type MessageTicket } from '../types';
import { AudioRecorder } from './AudioRecorder';
import { CameraDialog } from './CameraDialog';
import { ContactPickDialog } from './ContactPickDialog';
import { EmojiButton } from './EmojiButton';
import { MediaPreviewDialog } from './MediaPreviewDialog';
import type { MessageCommand } from './MessageItem';
import { MessagesList } from './MessagesList';
import { QuickAnswers } from './QuickAnswers';

const SIGN_KEY = 'signOption';

function storedSign(): boolean {
  return localStorage.getItem(SIGN_KEY) !== 'false';
}

/** One of the input's tools, for the row and the "more" menu alike. */
interface ToolDef {
  label: string;
  title: string;
  icon: ElementType<SvgIconProps>;
  run?: () => void;
  /** The id of the input this tool is a label of (instead of `run`). */
  htmlFor?: string;
  disabled?: boolean;
  /** A toggle's state (private note, sign). */
  on?: boolean;
  onColor?: 'primary' | 'warning';
}

interface Props {
  ticket: MessageTicket;
  /** The user may write (the ticket is open or a group in their hands). */
  canWrite: boolean;
}

export function MessagesPanel({ ticket, canWrite }: Props) {
  const { t } = useTranslation();
  const { user } = useAuthenticatedSession();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [isPrivate, setIsPrivate] = useState(false);
  const [sign, setSign] = useState(storedSign);
  const [replyTo, setReplyTo] = useState<Message | null>(null);
  const [editing, setEditing] = useState<Message | null>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [forwarding, setForwarding] = useState<Message | null>(null);
  const [sendingContact, setSendingContact] = useState(false);
  const [deleting, setDeleting] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);
  const [cameraOpen, setCameraOpen] = useState(false);
  const [recording, setRecording] = useState(false);
  const [toolsAnchor, setToolsAnchor] = useState<HTMLElement | null>(null);
  const [inputRef, inputWidth] = useElementWidth();
  const fileInputId = useId();
  // Quick answers: the list opens while the text starts with "/" (and was not closed with Escape).
  const [fileCaptions, setFileCaptions] = useState<string[]>([]);
  const [answersClosed, setAnswersClosed] = useState(false);
  const [activeAnswer, setActiveAnswer] = useState(0);
  const slash = canWrite && !editing && text.startsWith('/');
  const quickAnswers = useQuickAnswers(ticket.id, slash);
  const answers = slash && !answersClosed ? matchingAnswers(quickAnswers.data ?? [], text) : [];

  const put = (result: Message | Message[]) => {
    for (const message of Array.isArray(result) ? result : [result]) {
      queryClient.setQueryData<MessagesData>(messagesKeys.ticket(ticket.uuid), (data) => upsertMessage(data, message));
    }
  };

  const submit = async () => {
    const body = text.trim();
    if (!body || busy) return;
    setBusy(true);
    try {
      if (editing) {
        await editMessage(editing.id, body);
        put({ ...editing, body, isEdited: true });
        setEditing(null);
      } else {
        // The server signs (the company's setting and the user's name, one rule for every client).
        const payload: SendBody = isPrivate ? { body, isPrivate: true } : { body, signMessage: sign };
        if (replyTo) payload.quotedMsg = { id: replyTo.id };
        put(await sendMessage(ticket.id, payload));
        setReplyTo(null);
      }
      setText('');
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(false);
    }
  };

  const changeText = (value: string) => {
    setText(value);
    setActiveAnswer(0);
    if (!value.startsWith('/') || value === '/') setAnswersClosed(false);
  };

  const pickAnswer = async (answer: QuickAnswer) => {
    setAnswersClosed(true);
    if (!answer.isMedia) {
      setText(answer.message);
      return;
    }
    try {
      const file = await quickAnswerFile(answer);
      setText('');
      setFileCaptions([answer.message]);
      setFiles([file]);
    } catch (error) {
      toastError(error);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (answers.length > 0) {
      const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: answers.length - 1 };
      if (event.key in moves) {
        event.preventDefault();
        setActiveAnswer((current) => (current + (moves[event.key] ?? 0)) % answers.length);
        return;
      }
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        const answer = answers[Math.min(activeAnswer, answers.length - 1)];
        if (answer) void pickAnswer(answer);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setAnswersClosed(true);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void submit();
    }
  };

  const onCommand = (command: MessageCommand, message: Message, emoji?: string) => {
    switch (command) {
      case 'reply':
        setEditing(null);
        setReplyTo(message);
        return;
      case 'edit':
        if (!canEditMessage(message, user.id)) return;
        setReplyTo(null);
        setEditing(message);
        setText(message.body);
        return;
      case 'delete':
        setDeleting(message);
        return;
      case 'forward':
        setForwarding(message);
        return;
      case 'react':
        if (emoji) reactToMessage(message.id, emoji).catch(toastError);
        return;
    }
  };

  const sendFiles = async (items: { file: File; caption: string }[]) => {
    setBusy(true);
    try {
      put(await sendMedia(ticket.id, items, replyTo?.id, sign));
      setFiles([]);
      setFileCaptions([]);
      setReplyTo(null);
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(false);
    }
  };

  const sendVoiceNote = async (file: File) => {
    put(await sendMedia(ticket.id, [{ file, caption: '' }], replyTo?.id, sign));
    setReplyTo(null);
  };

  const toggleSign = () => {
    const next = !sign;
    localStorage.setItem(SIGN_KEY, String(next));
    setSign(next);
  };
  const toolDefs: Record<InputTool, ToolDef> = {
    // A label of the file input: the picker opens from the row and from the menu alike.
    attach: { label: t('messages.attach'), title: t('messages.attach'), icon: AttachFileIcon, htmlFor: fileInputId, disabled: !!editing },
    camera: { label: t('messages.camera.open'), title: t('messages.camera.open'), icon: PhotoCameraIcon, run: () => setCameraOpen(true), disabled: !!editing },
    private: {
      label: t('messages.privateNote'),
      title: isPrivate ? t('messages.privateOn') : t('messages.privateOff'),
      icon: isPrivate ? LockIcon : LockOpenIcon,
      run: () => setIsPrivate((v) => !v),
      on: isPrivate,
      onColor: 'warning',
    },
    sign: { label: t('messages.sign'), title: t('messages.sign'), icon: DrawIcon, run: toggleSign, on: sign, onColor: 'primary' },
    'send-contact': { label: t('messages.sendContact'), title: t('messages.sendContact'), icon: ContactPageIcon, run: () => setSendingContact(true) },
  };
  const tools = splitToFit(INPUT_TOOLS, toolsRoom(inputWidth), TOOL_WIDTH);

  const banner = editing ?? replyTo;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flex: '1 1 0px', minHeight: 0 }}>
      <MessagesList ticket={ticket} userId={user.id} onCommand={onCommand} />
      {canWrite ? (
        <Paper ref={inputRef} square elevation={2} sx={{ p: 1, position: 'relative', flexShrink: 0 }} data-testid="message-composer">
          <QuickAnswers answers={answers} active={Math.min(activeAnswer, answers.length - 1)} onPick={(answer) => void pickAnswer(answer)} />
          {banner && (
            <Stack direction="row" sx={{ alignItems: 'center', borderLeft: '4px solid', borderColor: 'primary.main', pl: 1, mb: 1 }} data-testid={editing ? 'input-editing' : 'input-replying'}>
              <Box sx={{ flex: 1, minWidth: 0 }}>
                <Typography variant="caption" color="primary">
                  {editing ? t('messages.editing') : t('messages.replyingTo')}
                </Typography>
                <Typography variant="body2" noWrap>
                  {banner.body}
                </Typography>
              </Box>
              <IconButton
                size="small"
                aria-label={t('common.cancel')}
                onClick={() => {
                  if (editing) setText('');
                  setEditing(null);
                  setReplyTo(null);
                }}
              >
                <CloseIcon fontSize="small" />
              </IconButton>
            </Stack>
          )}
          <Stack direction="row" spacing={0.5} sx={{ alignItems: 'flex-end' }}>
            {!recording && (
              <>
                <EmojiButton onPick={(emoji) => setText((current) => current + emoji)} />
                <input
                  id={fileInputId}
                  type="file"
                  multiple
                  hidden
                  data-testid="input-file"
                  onChange={(e) => {
                    setFiles(Array.from(e.target.files ?? []));
                    e.target.value = '';
                  }}
                />
                {tools.inline.map((key) => {
                  const tool = toolDefs[key];
                  const Icon = tool.icon;
                  return (
                    <Tooltip key={key} title={tool.title}>
                      <span>
                        <IconButton
                          {...(tool.htmlFor ? { component: 'label', htmlFor: tool.htmlFor } : { onClick: tool.run })}
                          disabled={tool.disabled}
                          color={tool.on ? tool.onColor : 'default'}
                          aria-pressed={tool.on}
                          aria-label={tool.label}
                          data-testid={`input-${key}`}
                        >
                          <Icon />
                        </IconButton>
                      </span>
                    </Tooltip>
                  );
                })}
                {tools.overflow.length > 0 && (
                  <>
                    <Tooltip title={t('messages.moreTools')}>
                      <IconButton onClick={(e) => setToolsAnchor(e.currentTarget)} aria-label={t('messages.moreTools')} aria-haspopup="menu" data-testid="input-more">
                        <AddCircleOutlineIcon />
                      </IconButton>
                    </Tooltip>
                    <Menu
                      anchorEl={toolsAnchor}
                      open={toolsAnchor !== null}
                      onClose={() => setToolsAnchor(null)}
                      anchorOrigin={{ vertical: 'top', horizontal: 'left' }}
                      transformOrigin={{ vertical: 'bottom', horizontal: 'left' }}
                      data-testid="input-more-menu"
                    >
                      {tools.overflow.map((key) => {
                        const tool = toolDefs[key];
                        const Icon = tool.icon;
                        return (
                          <MenuItem
                            key={key}
                            {...(tool.htmlFor ? { component: 'label', htmlFor: tool.htmlFor } : {})}
                            disabled={tool.disabled}
                            role={tool.on === undefined ? 'menuitem' : 'menuitemcheckbox'}
                            aria-checked={tool.on}
                            onClick={() => {
                              setToolsAnchor(null);
                              tool.run?.();
                            }}
                            data-testid={`input-${key}`}
                          >
                            <ListItemIcon>
                              <Icon fontSize="small" color={tool.on ? tool.onColor : 'inherit'} />
                            </ListItemIcon>
                            <ListItemText>{tool.title}</ListItemText>
                          </MenuItem>
                        );
                      })}
                    </Menu>
                  </>
                )}
                <TextField
                  fullWidth
                  multiline
                  maxRows={6}
                  size="small"
                  value={text}
                  onChange={(e) => changeText(e.target.value)}
                  onKeyDown={onKeyDown}
                  placeholder={isPrivate ? t('messages.placeholderPrivate') : t('messages.placeholder')}
                  sx={{ minWidth: 0, ...(isPrivate ? { bgcolor: (theme) => (theme.palette.mode === 'dark' ? 'rgba(255, 193, 7, 0.12)' : '#fff8e1') } : {}) }}
                  slotProps={{ htmlInput: { 'data-testid': 'message-input' } }}
                />
              </>
            )}
            {/* Empty input: the microphone takes the send button's place (and the row while recording). */}
            {!recording && (text.trim() || editing || isPrivate) ? (
              <IconButton color="primary" onClick={() => void submit()} disabled={busy || !text.trim()} aria-label={t('messages.send')} data-testid="message-send">
                <SendIcon />
              </IconButton>
            ) : (
              <AudioRecorder onSend={sendVoiceNote} onActiveChange={setRecording} disabled={busy} />
            )}
          </Stack>
        </Paper>
      ) : (
        <Paper square elevation={2} sx={{ p: 2, textAlign: 'center', flexShrink: 0 }}>
          <Typography variant="body2" color="text.secondary" data-testid="input-disabled">
            {t('messages.readOnly')}
          </Typography>
        </Paper>
      )}
      <CameraDialog
        open={cameraOpen}
        onClose={() => setCameraOpen(false)}
        onCapture={(photo) => {
          setCameraOpen(false);
          setFiles([photo]);
        }}
      />
      <MediaPreviewDialog
        key={files.length > 0 ? 'open' : 'closed'}
        files={files}
        initialCaptions={fileCaptions}
        busy={busy}
        onClose={() => {
          setFiles([]);
          setFileCaptions([]);
        }}
        onSend={(items) => void sendFiles(items)}
      />
      <ContactPickDialog
        open={forwarding !== null}
        title={t('messages.forward.title')}
        submitLabel={t('messages.forward.submit')}
        withSign
        testId="forward-dialog"
        onClose={() => setForwarding(null)}
        onSubmit={(contact, signMessage) => {
          const message = forwarding;
          setForwarding(null);
          if (!message) {
            toast.error(t('messages.forward.noMessage'));
            return;
          }
          forwardMessage(message.id, contact.id, signMessage)
            .then(() => toast.success(t('messages.forward.done')))
            .catch(toastError);
        }}
      />
      <ContactPickDialog
        open={sendingContact}
        title={t('messages.sendContact')}
        submitLabel={t('messages.send')}
        testId="send-contact-dialog"
        onClose={() => setSendingContact(false)}
        onSubmit={(contact) => {
          setSendingContact(false);
          sendMessage(ticket.id, { body: contact.name, vCard: { name: contact.name, number: contact.number ?? '' } })
            .then(put)
            .catch(toastError);
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={t('messages.deleteTitle')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const message = deleting;
          setDeleting(null);
          if (!message) return;
          deleteMessage(message.id)
            .then(() => put({ ...message, isDeleted: true }))
            .catch(toastError);
        }}
        testId="message-delete-confirm"
      >
        {t('messages.deleteMessage')}
      </ConfirmDialog>
    </Box>
  );
}
