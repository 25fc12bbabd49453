import { memo } from 'react';
import { Avatar, Badge, Box, Chip, IconButton, ListItemButton, Stack, Typography } from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import CloseIcon from '@mui/icons-material/Close';
import ReplayIcon from '@mui/icons-material/Replay';
import UndoIcon from '@mui/icons-material/Undo';
import { useTranslation } from 'react-i18next';
import { formatTicketTime, NAME_MAX, truncate } from '../format';
import type { Ticket } from '../types';
import { itemActions } from '../actions';
import { LastMessage } from './LastMessage';
import type { TicketAction } from '../hooks/useTicketActions';
import { Tooltip } from '../../../components/Tooltip';

const ICONS = { accept: CheckIcon, ignore: CloseIcon, return: UndoIcon, resolve: DoneAllIcon, reopen: ReplayIcon } as const;

interface TicketListItemProps {
  ticket: Ticket;
  selected: boolean;
  showOwner: boolean;
  canClosePending: boolean;
  onOpen: (ticket: Ticket) => void;
  onAction: (action: TicketAction, ticket: Ticket) => void;
}

/** One inbox row (spec 1 "Tickets inbox": avatar, name, last message, queue, connection, owner, tags, unread, time). */
export const TicketListItem = memo(function TicketListItem({ ticket, selected, showOwner, canClosePending, onOpen, onAction }: TicketListItemProps) {
  const { t } = useTranslation();
  const queueColor = ticket.queue?.color || '#7c7c7c';
  const actions = itemActions(ticket, canClosePending);
  return (
    <ListItemButton
      selected={selected}
      onClick={() => onOpen(ticket)}
      data-testid={`ticket-item-${ticket.id}`}
      data-status={ticket.status}
      sx={{ alignItems: 'flex-start', gap: 1.5, borderLeft: `6px solid ${queueColor}`, py: 1, pr: 1 }}
    >
      <Avatar src={ticket.contact.urlPicture ?? undefined} alt={ticket.contact.name} sx={{ width: 44, height: 44 }}>
        {ticket.contact.name.slice(0, 1).toUpperCase()}
      </Avatar>
      <Box sx={{ flex: 1, minWidth: 0 }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography variant="subtitle2" noWrap sx={{ flex: 1 }} data-testid="ticket-item-name" title={ticket.contact.name}>
            {truncate(ticket.contact.name, NAME_MAX)}
          </Typography>
          <Typography variant="caption" color={ticket.unreadMessages > 0 ? 'success.main' : 'text.secondary'} data-testid="ticket-item-time">
            {formatTicketTime(ticket.updatedAt)}
          </Typography>
        </Stack>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography variant="body2" color="text.secondary" noWrap sx={{ flex: 1 }} data-testid="ticket-item-last">
            <LastMessage ticket={ticket} />
          </Typography>
          {ticket.unreadMessages > 0 && (
            <Badge badgeContent={ticket.unreadMessages} color="success" max={999} data-testid="ticket-item-unread" sx={{ mr: 1.5 }} />
          )}
        </Stack>
        <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', mt: 0.5, alignItems: 'center' }}>
          <Chip size="small" label={ticket.queue?.name ?? t('tickets.noQueue')} sx={{ bgcolor: queueColor, color: '#fff' }} data-testid="ticket-item-queue" />
          {ticket.whatsapp && <Chip size="small" variant="outlined" label={ticket.whatsapp.name} data-testid="ticket-item-connection" />}
          {showOwner && ticket.user && <Chip size="small" color="primary" variant="outlined" label={ticket.user.name} data-testid="ticket-item-owner" />}
          {ticket.tags.map((tag) => (
            <Chip key={tag.id} size="small" label={tag.name} sx={{ bgcolor: tag.color, color: '#fff' }} data-testid="ticket-item-tag" />
          ))}
          {ticket.userRating && <Typography variant="caption">{['😡', '🙁', '😐', '🙂', '😍'][Math.min(4, Math.max(0, ticket.userRating.rate - 1))]}</Typography>}
        </Stack>
      </Box>
      <Stack direction="column" spacing={0.25}>
        {actions.map((action) => {
          const Icon = ICONS[action];
          return (
            <Tooltip key={action} title={t(`tickets.actions.${action}`)}>
              <IconButton
                size="small"
                aria-label={t(`tickets.actions.${action}`)}
                data-testid={`ticket-${action}-${ticket.id}`}
                onClick={(event) => {
                  event.stopPropagation();
                  onAction(action, ticket);
                }}
              >
                <Icon fontSize="small" />
              </IconButton>
            </Tooltip>
          );
        })}
      </Stack>
    </ListItemButton>
  );
});
