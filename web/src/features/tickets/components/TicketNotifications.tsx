import { useEffect, useState, useSyncExternalStore } from 'react';
import { Avatar, Badge, Box, IconButton, List, ListItemAvatar, ListItemButton, ListItemText, Popover, Typography } from '@mui/material';
import NotificationsIcon from '@mui/icons-material/NotificationsNone';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAuthenticatedSession } from '../../../lib/session';
import { getSocket, onSocketChange, useCompanyEvent } from '../../../lib/socket';
import { playNotificationSound } from '../../../lib/sound';
import { setTitleCount } from '../../../lib/title';
import { formatTicketTime, NAME_MAX, truncate } from '../format';
import {
  applyNotificationTicket,
  getUnreadTickets,
  notificationsKey,
  removeNotification,
  shouldPlaySound,
  visibleNotifications,
  type UnreadTickets,
} from '../notifications';
import { ticketSchema } from '../types';
import { LastMessage } from './LastMessage';
import { Tooltip } from '../../../components/Tooltip';

interface Payload {
  action?: string;
  ticket?: unknown;
  ticketId?: number;
  message?: unknown;
}

/** The `uuid` of the ticket open on screen (`/tickets/{uuid}`). */
function openTicketUuid(pathname: string): string | undefined {
  const match = /^\/tickets\/([^/]+)/.exec(pathname);
  return match ? decodeURIComponent(match[1]) : undefined;
}

function pageFocused(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

/**
 * The top bar's ticket notification bell (spec 1 "Layout and top bar"): a popover (max height
 * 300) listing the tickets with unread messages, live; the count on the browser title; a sound
 * at the stored volume for a new contact message that is not on the ticket being read.
 */
export function TicketNotifications() {
  const { t } = useTranslation();
  const { user } = useAuthenticatedSession();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const query = useQuery({ queryKey: notificationsKey, queryFn: ({ signal }) => getUnreadTickets(signal) });
  const openUuid = openTicketUuid(location.pathname);
  const shown = visibleNotifications(query.data, openUuid);

  const update = (change: (data: UnreadTickets | undefined) => UnreadTickets | undefined) => queryClient.setQueryData<UnreadTickets>(notificationsKey, change);

  useCompanyEvent<Payload>('ticket', (payload) => {
    if ((payload.action === 'delete' || payload.action === 'updateUnread') && typeof payload.ticketId === 'number') {
      const id = payload.ticketId;
      update((data) => removeNotification(data, id));
      return;
    }
    const ticket = ticketSchema.safeParse(payload.ticket);
    if (payload.action === 'update' && ticket.success) update((data) => applyNotificationTicket(data, ticket.data, user.id));
  });

  useCompanyEvent<Payload>('appMessage', (payload) => {
    const ticket = ticketSchema.safeParse(payload.ticket);
    if (ticket.success) update((data) => applyNotificationTicket(data, ticket.data, user.id));
    if (shouldPlaySound(payload, { userId: user.id, openUuid: openTicketUuid(window.location.pathname), focused: pageFocused() })) playNotificationSound();
  });

  // Back on line after a gap: the list is read again.
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  useEffect(() => {
    if (!socket) return;
    const onConnect = () => void queryClient.invalidateQueries({ queryKey: notificationsKey });
    socket.on('connect', onConnect);
    return () => {
      socket.off('connect', onConnect);
    };
  }, [socket, queryClient]);

  const count = shown.total;
  useEffect(() => {
    setTitleCount(count);
  }, [count]);
  useEffect(() => () => setTitleCount(0), []);

  return (
    <>
      <Tooltip title={t('tickets.notifications.title')}>
        <IconButton color="inherit" onClick={(e) => setAnchor(e.currentTarget)} aria-label={t('tickets.notifications.title')} data-testid="notifications-button">
          <Badge badgeContent={count} color="error" max={99} data-testid="notifications-count" data-count={count}>
            <NotificationsIcon />
          </Badge>
        </IconButton>
      </Tooltip>
      <Popover
        open={anchor !== null}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { width: 340, maxHeight: 300, overflowY: 'auto' } } }}
      >
        {shown.tickets.length === 0 ? (
          <Box sx={{ p: 2 }}>
            <Typography variant="body2" color="text.secondary" data-testid="notifications-empty">
              {t('tickets.notifications.empty')}
            </Typography>
          </Box>
        ) : (
          <List dense disablePadding data-testid="notifications-list">
            {shown.tickets.map((ticket) => (
              <ListItemButton
                key={ticket.id}
                data-testid={`notification-item-${ticket.id}`}
                onClick={() => {
                  setAnchor(null);
                  navigate(`/tickets/${ticket.uuid}`);
                }}
              >
                <ListItemAvatar>
                  <Badge badgeContent={ticket.unreadMessages} color="success" max={99}>
                    <Avatar src={ticket.contact.urlPicture ?? undefined} alt={ticket.contact.name}>
                      {ticket.contact.name.slice(0, 1).toUpperCase()}
                    </Avatar>
                  </Badge>
                </ListItemAvatar>
                <ListItemText
                  primary={truncate(ticket.contact.name, NAME_MAX)}
                  secondary={<LastMessage ticket={ticket} />}
                  slotProps={{ primary: { noWrap: true }, secondary: { noWrap: true } }}
                />
                <Typography variant="caption" color="text.secondary" sx={{ ml: 1, whiteSpace: 'nowrap' }}>
                  {formatTicketTime(ticket.updatedAt)}
                </Typography>
              </ListItemButton>
            ))}
          </List>
        )}
      </Popover>
    </>
  );
}
