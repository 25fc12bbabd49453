import { Fragment, useCallback, useLayoutEffect, useRef, type UIEvent } from 'react';
import { Box, Chip, CircularProgress } from '@mui/material';
import { flattenMessages, useMessages } from '../api/messages';
import { dayOf } from '../format';
import type { Message, MessageTicket } from '../types';
import { MessageItem, type MessageCommand } from './MessageItem';

/** Loads the older page when scrolled within this many px of the top (spec 1 §9). */
export const TOP_THRESHOLD = 50;


interface Props {
  ticket: MessageTicket;
  userId: number;
  onCommand: (command: MessageCommand, message: Message, emoji?: string) => void;
}

/** The ticket's messages, oldest first, with date separators; older pages load near the top. */
export function MessagesList({ ticket, userId, onCommand }: Props) {
  const query = useMessages(ticket.uuid);
  const messages = flattenMessages(query.data);
  const container = useRef<HTMLDivElement | null>(null);
  const lastId = messages.length ? messages[messages.length - 1].id : null;
  const firstId = messages.length ? messages[0].id : null;
  const previous = useRef<{ lastId: number | null; firstId: number | null; height: number }>({ lastId: null, firstId: null, height: 0 });

  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    const before = previous.current;
    if (lastId !== before.lastId) {
      element.scrollTop = element.scrollHeight;
    } else if (firstId !== before.firstId) {
      // An older page came in above: keep the reader where they were.
      element.scrollTop += element.scrollHeight - before.height;
    }
    previous.current = { lastId, firstId, height: element.scrollHeight };
  }, [lastId, firstId]);

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const onScroll = useCallback(
    (event: UIEvent<HTMLDivElement>) => {
      if (event.currentTarget.scrollTop < TOP_THRESHOLD && hasNextPage && !isFetchingNextPage) void fetchNextPage();
    },
    [hasNextPage, isFetchingNextPage, fetchNextPage],
  );

  const social = ticket.channel === 'facebook' || ticket.channel === 'instagram';
  return (
    <Box ref={container} onScroll={onScroll} sx={{ flex: 1, overflowY: 'auto', minHeight: 0, px: 2, py: 1, bgcolor: 'action.hover' }} data-testid="messages-list">
      {isFetchingNextPage && (
        <Box sx={{ textAlign: 'center' }}>
          <CircularProgress size={20} />
        </Box>
      )}
      {query.isPending && (
        <Box sx={{ textAlign: 'center', mt: 4 }}>
          <CircularProgress />
        </Box>
      )}
      {messages.map((message, index) => {
        const messageDay = dayOf(message.createdAt);
        const separator = index === 0 || dayOf(messages[index - 1].createdAt) !== messageDay;
        return (
          <Fragment key={message.id}>
            {separator && (
              <Box sx={{ textAlign: 'center', my: 1 }}>
                <Chip size="small" label={messageDay} data-testid="messages-day" />
              </Box>
            )}
            <MessageItem message={message} userId={userId} social={social} onCommand={onCommand} />
          </Fragment>
        );
      })}
    </Box>
  );
}
