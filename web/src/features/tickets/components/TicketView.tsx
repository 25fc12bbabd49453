import { useEffect, useState } from 'react';
import { Avatar, Box, Button, CircularProgress, IconButton, ListItemIcon, ListItemText, Menu, MenuItem, Paper, Tooltip, Typography, useMediaQuery } from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import HistoryIcon from '@mui/icons-material/History';
import MoreVertIcon from '@mui/icons-material/MoreVert';
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
import { splitToFit } from '../../../lib/layout/overflow';
import { useElementWidth } from '../../../lib/layout/useElementWidth';
import { getSocket } from '../../../lib/socket';
import { useAuthenticatedSession } from '../../../lib/session';
import { MessagesPanel } from '../messages/components/MessagesPanel';
import { ScheduleDialog } from '../../../components/ScheduleDialog';
import { ticketsKeys, useTicket } from '../api/tickets';
import { applyInboxEvent } from '../hooks/useInboxRealtime';
import { useReadWhileOpen } from '../hooks/useReadWhileOpen';
import { useTicketActions, type TicketAction } from '../hooks/useTicketActions';
import type { Ticket } from '../types';
import { actionsRoom, ACTION_WIDTH, byPriority, drawerOverlays, HEADER_GAP, MOBILE_QUERY, NAME_MIN_WIDTH, type HeaderAction } from '../layout';
import { isMissingTicketError, missingTicketState } from '../missing';
import { CONTACT_DRAWER_WIDTH, ContactDrawer } from './ContactDrawer';
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
  const [moreAnchor, setMoreAnchor] = useState<HTMLElement | null>(null);
  const [viewRef, viewWidth] = useElementWidth();
  const [headerRef, headerWidth] = useElementWidth();
  const phone = useMediaQuery(MOBILE_QUERY);
  const ticketId = query.data?.id;
  useReadWhileOpen(query.data);

  // The server resets the unread count on the first messages page; the lists follow at once.
  const queryClient = useQueryClient();
  useEffect(() => {
    if (ticketId === undefined) return;
    applyInboxEvent(queryClient, 'ticket', { action: 'updateUnread', ticketId });
    queryClient.setQueryData<Ticket>(ticketsKeys.detail(uuid), (data) => (data && data.unreadMessages > 0 ? { ...data, unreadMessages: 0 } : data));
  }, [ticketId, uuid, queryClient]);

  const missing = query.isError && isMissingTicketError(query.error);
  useEffect(() => {
    if (missing) navigate('/tickets', { replace: true, state: missingTicketState(uuid) });
  }, [missing, navigate, uuid]);

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
    // A missing ticket goes back to the list (the effect above); another failure can be retried.
    return (
      <Box sx={{ p: 4, textAlign: 'center' }} data-testid="ticket-not-found">
        <Typography>{missing ? t('tickets.notFound') : t('errors.generic')}</Typography>
        {!missing && <Button onClick={() => void query.refetch()}>{t('tickets.retry')}</Button>}
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

  const headerActions: HeaderAction[] = [
    ...available.map((action) => ({ key: action, label: t(`tickets.actions.${action}`), icon: ICONS[action], run: () => actions.run(action, ticket), disabled: actions.busy })),
    ...(canWrite ? [{ key: 'meeting', label: t('tickets.actions.meeting'), icon: VideoCallIcon, run: () => setMeeting(true) }] : []),
    ...(permissions.includes('menu:schedules') ? [{ key: 'schedule', label: t('schedules.action'), icon: ScheduleIcon, run: () => setScheduling(true) }] : []),
    { key: 'pdf', label: t('tickets.actions.exportPdf'), icon: PictureAsPdfIcon, run: () => setExporting(true) },
    { key: 'log', label: t('tickets.actions.log'), icon: HistoryIcon, run: () => setLogOpen(true) },
  ];
  const { inline, overflow } = splitToFit(byPriority(headerActions), actionsRoom(headerWidth), ACTION_WIDTH);
  const drawerOverlay = drawerOverlays(phone, viewWidth, CONTACT_DRAWER_WIDTH);

  return (
    <Box ref={viewRef} sx={{ display: 'flex', flex: '1 1 0px', minHeight: 0, minWidth: 0 }} data-testid="ticket-view">
      <Box sx={{ display: 'flex', flexDirection: 'column', flex: '1 1 0px', minWidth: 0, minHeight: 0 }}>
        <Paper square elevation={1} sx={{ px: 1, py: 0.5, flexShrink: 0, position: 'relative', zIndex: 1 }} data-testid="ticket-header">
          <Box ref={headerRef} sx={{ display: 'flex', alignItems: 'center', gap: `${HEADER_GAP}px` }}>
            <IconButton onClick={() => navigate('/tickets')} aria-label={t('common.back')} data-testid="ticket-back">
              <ArrowBackIcon />
            </IconButton>
            <Box
              role="button"
              tabIndex={0}
              aria-expanded={drawer}
              onClick={() => setDrawer((v) => !v)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  setDrawer((v) => !v);
                }
              }}
              sx={{ display: 'flex', alignItems: 'center', gap: 1, flex: '1 1 auto', minWidth: NAME_MIN_WIDTH, cursor: 'pointer', borderRadius: 1, '&:focus-visible': { outline: 2, outlineColor: 'primary.main' } }}
              data-testid="ticket-contact"
            >
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
            <Box sx={{ display: 'flex', flexShrink: 0 }} data-testid="ticket-header-actions">
              {inline.map((action) => {
                const Icon = action.icon;
                return (
                  <Tooltip key={action.key} title={action.label}>
                    <span>
                      <IconButton onClick={action.run} disabled={action.disabled} aria-label={action.label} data-testid={`ticket-header-${action.key}`}>
                        <Icon />
                      </IconButton>
                    </span>
                  </Tooltip>
                );
              })}
              {overflow.length > 0 && (
                <Tooltip title={t('tickets.moreActions')}>
                  <IconButton
                    onClick={(event) => setMoreAnchor(event.currentTarget)}
                    aria-label={t('tickets.moreActions')}
                    aria-haspopup="menu"
                    aria-expanded={moreAnchor !== null}
                    data-testid="ticket-header-more"
                  >
                    <MoreVertIcon />
                  </IconButton>
                </Tooltip>
              )}
            </Box>
          </Box>
        </Paper>
        <Menu anchorEl={moreAnchor} open={moreAnchor !== null && overflow.length > 0} onClose={() => setMoreAnchor(null)} data-testid="ticket-header-menu">
          {overflow.map((action) => {
            const Icon = action.icon;
            return (
              <MenuItem
                key={action.key}
                disabled={action.disabled}
                onClick={() => {
                  setMoreAnchor(null);
                  action.run();
                }}
                data-testid={`ticket-header-${action.key}`}
              >
                <ListItemIcon>
                  <Icon fontSize="small" />
                </ListItemIcon>
                <ListItemText>{action.label}</ListItemText>
              </MenuItem>
            );
          })}
        </Menu>
        <MessagesPanel
          key={ticket.uuid}
          ticket={{ id: ticket.id, uuid: ticket.uuid, status: ticket.status, channel: ticket.channel, contactId: ticket.contactId, contactName: ticket.contact.name }}
          canWrite={canWrite}
        />
      </Box>
      <ContactDrawer ticket={ticket} open={drawer} overlay={drawerOverlay} onClose={() => setDrawer(false)} />
      <TicketLogDialog ticketId={ticket.id} open={logOpen} onClose={() => setLogOpen(false)} />
      {exporting && <ExportPdfDialog ticket={ticket} onClose={() => setExporting(false)} />}
      <MeetingLinkDialog ticket={meeting ? ticket : null} onClose={() => setMeeting(false)} />
      {scheduling && <ScheduleDialog contactId={ticket.contactId} whatsappId={ticket.whatsappId ?? null} onClose={() => setScheduling(false)} />}
      {actions.dialogs}
    </Box>
  );
}
