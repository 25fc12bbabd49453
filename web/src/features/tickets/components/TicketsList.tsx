import { useCallback } from 'react';
import { Box, List, ListItem, Skeleton, Stack, Typography } from '@mui/material';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useNearBottom } from '../../../lib/hooks/useNearBottom';
import { useTickets, type TicketListParams } from '../api/tickets';
import type { TicketAction } from '../hooks/useTicketActions';
import type { Ticket } from '../types';
import { TicketListItem } from './TicketListItem';

interface Props {
  params: TicketListParams;
  selectedUuid: string | undefined;
  showOwner: boolean;
  canClosePending: boolean;
  onAction: (action: TicketAction, ticket: Ticket) => void;
}

function Skeletons() {
  return (
    <Stack data-testid="tickets-skeleton">
      {Array.from({ length: 4 }, (_, i) => (
        <ListItem key={i} sx={{ gap: 1.5 }}>
          <Skeleton variant="circular" width={44} height={44} />
          <Box sx={{ flex: 1 }}>
            <Skeleton width="60%" />
            <Skeleton width="90%" />
          </Box>
        </ListItem>
      ))}
    </Stack>
  );
}

/** One tab's tickets: infinite scroll (next page within 100 px of the bottom), skeletons, empty state. */
export function TicketsList({ params, selectedUuid, showOwner, canClosePending, onAction }: Props) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const query = useTickets(params);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const onScroll = useNearBottom(loadMore, 100);
  const onOpen = useCallback((ticket: Ticket) => navigate(`/tickets/${ticket.uuid}`), [navigate]);
  const tickets = query.data?.pages.flatMap((page) => page.tickets) ?? [];

  return (
    <Box onScroll={onScroll} sx={{ flex: 1, overflowY: 'auto', minHeight: 0 }} data-testid={`tickets-list-${params.tab}`}>
      {query.isPending ? (
        <Skeletons />
      ) : tickets.length === 0 ? (
        <Box sx={{ p: 3, textAlign: 'center' }} data-testid="tickets-empty">
          <Typography variant="subtitle1">{t('tickets.empty.title')}</Typography>
          <Typography variant="body2" color="text.secondary">
            {t('tickets.empty.message')}
          </Typography>
        </Box>
      ) : (
        <List disablePadding>
          {tickets.map((ticket) => (
            <TicketListItem
              key={ticket.id}
              ticket={ticket}
              selected={ticket.uuid === selectedUuid}
              showOwner={showOwner}
              canClosePending={canClosePending}
              onOpen={onOpen}
              onAction={onAction}
            />
          ))}
          {isFetchingNextPage && <Skeletons />}
        </List>
      )}
    </Box>
  );
}
