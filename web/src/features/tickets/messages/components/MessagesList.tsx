import { Fragment, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Badge, Box, Chip, CircularProgress, Fab, Tooltip } from '@mui/material';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import { useTranslation } from 'react-i18next';
import { flattenMessages, useMessages } from '../api/messages';
import { dayOf } from '../format';
import { isAtBottom, listChange, shouldLoadOlder, type ListEnds } from '../scroll';
import type { Message, MessageTicket } from '../types';
import { MessageItem, type MessageCommand } from './MessageItem';

interface Props {
  ticket: MessageTicket;
  userId: number;
  onCommand: (command: MessageCommand, message: Message, emoji?: string) => void;
}

/** The element of a loaded message in the list (its wrapper, without the day separator). */
function messageElement(list: HTMLElement, id: number | null): HTMLElement | null {
  return id === null ? null : list.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
}

/**
 * The ticket's messages, oldest first, with date separators, in their own scrolling pane
 * (tickets/messages/scroll.ts): opens at the newest message, follows new ones while the reader
 * is at the bottom, otherwise counts them on the "new messages" marker; older pages load near
 * the top (or while the messages do not fill the pane) and keep the view where it was.
 */
export function MessagesList({ ticket, userId, onCommand }: Props) {
  const { t } = useTranslation();
  const query = useMessages(ticket.uuid);
  const messages = useMemo(() => flattenMessages(query.data), [query.data]);
  const scroller = useRef<HTMLDivElement | null>(null);
  const content = useRef<HTMLDivElement | null>(null);
  // The ends of the list at the last layout, and where its first message then was.
  const ends = useRef<ListEnds & { firstTop: number }>({ firstId: null, lastId: null, firstTop: 0 });
  const atBottom = useRef(true);
  /** A jump to the latest message is scrolling there: the reader counts as at the bottom meanwhile. */
  const jumping = useRef(false);
  const [away, setAway] = useState(false);
  const [arrived, setArrived] = useState(0);

  // Before paint: apply what the change of messages asks (listChange).
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const before = ends.current;
    const change = listChange(before, messages, atBottom.current, userId);
    if (change.move === 'bottom') {
      element.scrollTop = element.scrollHeight;
      atBottom.current = true;
      setAway(false);
      setArrived(0);
    } else if (change.move === 'anchor') {
      // Older messages came in above: the message that was first stays where the reader saw it.
      const anchor = messageElement(element, before.firstId);
      if (anchor) element.scrollTop += anchor.offsetTop - before.firstTop;
    }
    if (change.arrived > 0) setArrived((count) => count + change.arrived);
    const firstId = messages.length ? messages[0].id : null;
    ends.current = {
      firstId,
      lastId: messages.length ? messages[messages.length - 1].id : null,
      firstTop: messageElement(element, firstId)?.offsetTop ?? 0,
    };
  }, [messages, userId]);

  // Content that grows or a pane that shrinks (media loading, a taller input, a drawer) keeps a
  // reader at the bottom at the bottom.
  useEffect(() => {
    const element = scroller.current;
    const inner = content.current;
    if (!element || !inner || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (atBottom.current) element.scrollTop = element.scrollHeight;
      const first = messageElement(element, ends.current.firstId);
      if (first) ends.current = { ...ends.current, firstTop: first.offsetTop };
    });
    observer.observe(element);
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadOlderIfNeeded = useCallback(() => {
    const element = scroller.current;
    if (element && shouldLoadOlder(element, { hasMore: hasNextPage, loading: isFetchingNextPage })) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  // Messages that do not fill the pane leave nothing to scroll: the older page comes anyway.
  useEffect(loadOlderIfNeeded, [loadOlderIfNeeded, messages.length]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    if (isAtBottom(element)) jumping.current = false;
    // On its way down after "jump to latest", a message that arrives is followed, not marked.
    const bottom = jumping.current || isAtBottom(element);
    atBottom.current = bottom;
    setAway(!bottom);
    if (bottom) setArrived(0);
    loadOlderIfNeeded();
  };

  // A jump that ended (or that the reader stopped): where the list is now is the truth.
  const onScrollEnd = () => {
    if (!jumping.current) return;
    jumping.current = false;
    onScroll();
  };

  const jumpToLatest = () => {
    const element = scroller.current;
    if (!element) return;
    atBottom.current = true;
    jumping.current = true;
    element.scrollTo({ top: element.scrollHeight, behavior: 'smooth' });
    setArrived(0);
  };

  const social = ticket.channel === 'facebook' || ticket.channel === 'instagram';
  const jumpLabel = arrived > 0 ? t('messages.newMessages', { count: arrived }) : t('messages.jumpToLatest');
  return (
    <Box sx={{ position: 'relative', flex: '1 1 0px', minHeight: 0, display: 'flex', flexDirection: 'column', bgcolor: 'action.hover' }}>
      <Box
        ref={scroller}
        onScroll={onScroll}
        onScrollEnd={onScrollEnd}
        // The view is kept in place by hand (older pages): the browser's own anchoring would add to it.
        sx={{ flex: '1 1 0px', minHeight: 0, overflowY: 'auto', overflowX: 'hidden', overflowAnchor: 'none', overscrollBehavior: 'contain', position: 'relative' }}
        data-testid="messages-list"
      >
        <Box ref={content} sx={{ px: { xs: 1, sm: 2 }, py: 1 }}>
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
                <div data-message-id={message.id}>
                  <MessageItem message={message} ticketUuid={ticket.uuid} userId={userId} social={social} onCommand={onCommand} />
                </div>
              </Fragment>
            );
          })}
        </Box>
      </Box>
      {isFetchingNextPage && (
        // Over the messages, so its coming and going does not move them.
        <Box sx={{ position: 'absolute', top: 8, left: 0, right: 0, display: 'flex', justifyContent: 'center', pointerEvents: 'none' }} data-testid="messages-loading-older">
          <CircularProgress size={20} />
        </Box>
      )}
      {arrived > 0 && (
        <Chip
          color="primary"
          icon={<KeyboardArrowDownIcon />}
          label={t('messages.newMessages', { count: arrived })}
          onClick={jumpToLatest}
          data-testid="messages-new-marker"
          data-count={arrived}
          sx={{ position: 'absolute', bottom: 12, left: '50%', transform: 'translateX(-50%)', boxShadow: 3, maxWidth: 'calc(100% - 96px)' }}
        />
      )}
      {away && (
        <Tooltip title={jumpLabel}>
          <Fab size="small" color="default" onClick={jumpToLatest} aria-label={jumpLabel} data-testid="messages-jump-latest" sx={{ position: 'absolute', bottom: 12, right: 16 }}>
            <Badge badgeContent={arrived} color="primary">
              <KeyboardArrowDownIcon />
            </Badge>
          </Fab>
        </Tooltip>
      )}
    </Box>
  );
}
