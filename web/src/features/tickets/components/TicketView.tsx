import { useEffect, useState } from 'react';
import { Avatar, Box, Button, CircularProgress, IconButton, Paper, Stack, Tooltip, Typography } from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import HistoryIcon from '@mui/icons-material/History';
import PictureAsPdfIcon from '@mui/icons-material/PictureAsPdfOutlined';
import SmartToyIcon from '@mui/icons-material/SmartToyOutlined';
import ReplayIcon from '@mui/icons-material/Replay';
import ScheduleIcon from '@mui/icons-material/Schedule';
import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import UndoIcon from '@mui/icons-material/Undo';
import VideoCallIcon from '@mui/icons-material/VideoCallOutlined';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { getSocket } from '../../../lib/socket';
import { useAuthenticatedSession } from '../../../lib/session';
import { MessagesPanel } from '../../messages/components/MessagesPanel';
import { ScheduleDialog } from '../../schedules/components/ScheduleDialog';
import { ticketsKeys, useTicket } from '../api/tickets';
import { applyInboxEvent } from '../hooks/useInboxRealtime';
import { useReadWhileOpen } from '../hooks/useReadWhileOpen';
import { useTicketActions, type TicketAction } from '../hooks/useTicketActions';
import type { Ticket } from '../types';
import { ContactDrawer } from './ContactDrawer';
import { ExportPdfDialog } from './ExportPdfDialog';
import { MeetingLinkDialog } from './MeetingLinkDialog';
import { TicketLogDialog } from './TicketLogDialog';

const ICONS = { accept: CheckIcon, ignore: CloseIcon, return: UndoIcon, resolve: DoneAllIcon, reopen: ReplayIcon, transfer: SwapHorizIcon, delete: DeleteOutlineIcon, integration: SmartToyIcon } as const;

/** /tickets/{uuid}: header with the actions of spec 1 §4, the conversation and the contact drawer. */
export function TicketView({ uuid }: { uuid: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user, permissions } = useAuthenticatedSession();
  const query = useTicket(uuid);
  const actions = useTicketActions({ onLeave: () => navigate('/tickets') });
  const [drawer, setDrawer] = useState(false);
  const [logOpen, setLogOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [meeting, setMeeting] = useState(false);
  const [scheduling, setScheduling] = useState(false);
  const ticketId = query.data?.id;
  useReadWhileOpen(query.data);

  // The server resets the unread count on the first messages page; the lists follow at once.
  const queryClient = useQueryClient();
  useEffect(() => {
    if (ticketId === undefined) return;
    applyInboxEvent(queryClient, 'ticket', { action: 'updateUnread', ticketId });
    queryClient.setQueryData<Ticket>(ticketsKeys.detail(uuid), (data) => (data && data.unreadMessages > 0 ? { ...data, unreadMessages: 0 } : data));
  }, [ticketId, uuid, queryClient]);

  useEffect(() => {
    const socket = getSocket();
    if (!socket || ticketId === undefined) return;
    const join = () => socket.emit('joinChatBox', String(ticketId));
    join();
    // A new connection has no rooms: join again.
    socket.on('connect', join);
    return () => {
      socket.off('connect', join);
      socket.emit('leaveChatBox', String(ticketId));
    };
  }, [ticketId]);

  if (query.isPending) {
    return (
      <Box sx={{ p: 4, textAlign: 'center' }}>
        <CircularProgress />
      </Box>
    );
  }
  if (query.isError || !query.data) {
    return (
      <Box sx={{ p: 4, textAlign: 'center' }} data-testid="ticket-not-found">
        <Typography>{t('errors.ERR_NO_TICKET_FOUND')}</Typography>
        <Button onClick={() => navigate('/tickets')}>{t('common.back')}</Button>
      </Box>
    );
  }

  const ticket = query.data;
  const canClosePending = permissions.includes('tickets:close-pending') || user.userClosePendingTicket === 'enabled';
  const available: TicketAction[] = [];
  if (ticket.status === 'pending') available.push('accept', ...(canClosePending ? (['ignore'] as const) : []));
  if (ticket.status === 'lgpd' && canClosePending) available.push('ignore');
  if (ticket.status === 'open' || ticket.status === 'group') available.push('return', 'resolve', 'transfer', 'integration');
  if (ticket.status === 'closed') available.push('reopen');
  if (permissions.includes('ticket-options:deleteTicket')) available.push('delete');
  const canWrite = ticket.status === 'open' || ticket.status === 'group';

  return (
    <Box sx={{ display: 'flex', height: '100%', minHeight: 0 }} data-testid="ticket-view">
      <Box sx={{ display: 'flex', flexDirection: 'column', flex: 1, minWidth: 0 }}>
        <Paper square elevation={1} sx={{ px: 1, py: 0.5 }}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <IconButton onClick={() => navigate('/tickets')} aria-label={t('common.back')} data-testid="ticket-back">
              <ArrowBackIcon />
            </IconButton>
            <Box onClick={() => setDrawer((v) => !v)} sx={{ display: 'flex', alignItems: 'center', gap: 1, flex: 1, minWidth: 0, cursor: 'pointer' }} data-testid="ticket-contact">
              <Avatar src={ticket.contact.urlPicture ?? undefined}>{ticket.contact.name.slice(0, 1)}</Avatar>
              <Box sx={{ minWidth: 0 }}>
                <Typography variant="subtitle1" noWrap data-testid="ticket-header-name">
                  {ticket.contact.name} <Typography component="span" variant="caption" color="text.secondary">#{ticket.id}</Typography>
                </Typography>
                <Typography variant="caption" color="text.secondary" noWrap sx={{ display: 'block' }} data-testid="ticket-header-user">
                  {ticket.user ? t('tickets.assignedTo', { name: ticket.user.name }) : t('tickets.unassigned')}
                  {ticket.queue ? ` · ${ticket.queue.name}` : ''}
                </Typography>
              </Box>
            </Box>
            {available.map((action) => {
              const Icon = ICONS[action];
              return (
                <Tooltip key={action} title={t(`tickets.actions.${action}`)}>
                  <span>
                    <IconButton onClick={() => actions.run(action, ticket)} disabled={actions.busy} aria-label={t(`tickets.actions.${action}`)} data-testid={`ticket-header-${action}`}>
                      <Icon />
                    </IconButton>
                  </span>
                </Tooltip>
              );
            })}
            {canWrite && (
              <Tooltip title={t('tickets.actions.meeting')}>
                <IconButton onClick={() => setMeeting(true)} aria-label={t('tickets.actions.meeting')} data-testid="ticket-header-meeting">
                  <VideoCallIcon />
                </IconButton>
              </Tooltip>
            )}
            {permissions.includes('menu:schedules') && (
              <Tooltip title={t('schedules.action')}>
                <IconButton onClick={() => setScheduling(true)} aria-label={t('schedules.action')} data-testid="ticket-header-schedule">
                  <ScheduleIcon />
                </IconButton>
              </Tooltip>
            )}
            <Tooltip title={t('tickets.actions.exportPdf')}>
              <IconButton onClick={() => setExporting(true)} aria-label={t('tickets.actions.exportPdf')} data-testid="ticket-header-pdf">
                <PictureAsPdfIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('tickets.actions.log')}>
              <IconButton onClick={() => setLogOpen(true)} aria-label={t('tickets.actions.log')} data-testid="ticket-header-log">
                <HistoryIcon />
              </IconButton>
            </Tooltip>
          </Stack>
        </Paper>
        <MessagesPanel
          key={ticket.uuid}
          ticket={{ id: ticket.id, uuid: ticket.uuid, status: ticket.status, channel: ticket.channel, contactId: ticket.contactId, contactName: ticket.contact.name }}
          canWrite={canWrite}
        />
      </Box>
      <ContactDrawer ticket={ticket} open={drawer} onClose={() => setDrawer(false)} />
      <TicketLogDialog ticketId={ticket.id} open={logOpen} onClose={() => setLogOpen(false)} />
      {exporting && <ExportPdfDialog ticket={ticket} onClose={() => setExporting(false)} />}
      <MeetingLinkDialog ticket={meeting ? ticket : null} onClose={() => setMeeting(false)} />
      {scheduling && <ScheduleDialog contactId={ticket.contactId} whatsappId={ticket.whatsappId ?? null} onClose={() => setScheduling(false)} />}
      {actions.dialogs}
    </Box>
  );
}
