/**
 * Messages (docs/api.md "Messages"): the pages of a ticket (newest page first, each page oldest
 * first; older pages through `nextCursor`), send text / note / contact card / media, edit,
 * delete, react, forward, the media bytes fetched with the bearer token, and the download of a
 * received attachment tried again.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { api } from '../../../../lib/api';
import { messageSchema, messagesPageSchema, type Message, type MessagesPage } from '../types';
import { z } from 'zod/mini';

export const messagesKeys = {
  all: ['messages'] as const,
  ticket: (uuid: string) => [...messagesKeys.all, 'ticket', uuid] as const,
  media: (id: number) => [...messagesKeys.all, 'media', id] as const,
};

export type MessagesPageParam = { cursor: string | null; pageNumber: number };
export type MessagesData = InfiniteData<MessagesPage, MessagesPageParam>;

export function getMessages(uuid: string, page: MessagesPageParam, signal?: AbortSignal): Promise<MessagesPage> {
  return api.get(`/messages/${encodeURIComponent(uuid)}`, {
    params: { cursor: page.cursor ?? undefined, pageNumber: page.cursor ? undefined : page.pageNumber },
    schema: messagesPageSchema,
    signal,
  });
}

export function useMessages(uuid: string) {
  return useInfiniteQuery({
    queryKey: messagesKeys.ticket(uuid),
    queryFn: ({ pageParam, signal }) => getMessages(uuid, pageParam, signal),
    initialPageParam: { cursor: null, pageNumber: 1 } as MessagesPageParam,
    getNextPageParam: (last: MessagesPage, _all: MessagesPage[], lastParam: MessagesPageParam): MessagesPageParam | undefined =>
      last.hasMore ? { cursor: last.nextCursor ?? null, pageNumber: lastParam.pageNumber + 1 } : undefined,
  });
}

/** Every loaded message, oldest first (pages are newest first, each oldest first). */
export function flattenMessages(data: { pages: MessagesPage[] } | undefined): Message[] {
  if (!data) return [];
  const seen = new Set<number>();
  const out: Message[] = [];
  for (const page of [...data.pages].reverse()) {
    for (const message of page.messages) {
      if (seen.has(message.id)) continue;
      seen.add(message.id);
      out.push(message);
    }
  }
  return out;
}

/** Adds or replaces a message in a ticket's loaded pages (live events and own sends). */
export function upsertMessage(data: MessagesData | undefined, message: Message): MessagesData | undefined {
  if (!data || data.pages.length === 0) return data;
  const present = data.pages.some((page) => page.messages.some((m) => m.id === message.id));
  if (present) {
    return { ...data, pages: data.pages.map((page) => ({ ...page, messages: page.messages.map((m) => (m.id === message.id ? message : m)) })) };
  }
  const [newest, ...older] = data.pages;
  return { ...data, pages: [{ ...newest, messages: [...newest.messages, message] }, ...older] };
}

export interface SendBody {
  body: string;
  /** The server signs the body with the user's name (when the company signs messages); `false` sends it unsigned. */
  signMessage?: boolean;
  quotedMsg?: { id: number };
  isPrivate?: boolean;
  vCard?: { name: string; number: string };
}

const sentSchema = z.union([messageSchema, z.array(messageSchema)]);

export function sendMessage(ticketId: number, body: SendBody): Promise<Message | Message[]> {
  return api.post(`/messages/${ticketId}`, body, { schema: sentSchema });
}

/** Multipart: one `medias` file and one `body` caption per file; `signMessage` as for text. */
export function sendMedia(
  ticketId: number,
  files: { file: File; caption: string }[],
  quotedMsgId?: number,
  signMessage?: boolean,
): Promise<Message | Message[]> {
  const form = new FormData();
  for (const { file, caption } of files) {
    form.append('medias', file, file.name);
    form.append('body', caption);
  }
  if (quotedMsgId !== undefined) form.append('quotedMsg', JSON.stringify({ id: quotedMsgId }));
  if (signMessage !== undefined) form.append('signMessage', String(signMessage));
  return api.post(`/messages/${ticketId}`, form, { schema: sentSchema });
}

export function editMessage(id: number, body: string): Promise<unknown> {
  return api.post(`/messages/edit/${id}`, { body });
}

export function deleteMessage(id: number): Promise<unknown> {
  return api.delete(`/messages/${id}`);
}

export function reactToMessage(id: number, emoji: string): Promise<unknown> {
  return api.post(`/messages/${id}/react`, { emoji });
}

export function forwardMessage(messageId: number, contactId: number, signMessage: boolean): Promise<unknown> {
  return api.post('/message/forward', { messageId, contactId, signMessage });
}

/**
 * Downloads a received attachment again (the message has a `mediaError`): the message as
 * updated, with its `mediaUrl` and no `mediaError`. Fails with `ERR_WAPP_DOWNLOAD_MEDIA` when
 * the download fails again, `ERR_WAPP_NOT_INITIALIZED` when the connection is not connected.
 */
export function retryMessageMedia(id: number): Promise<Message> {
  return api.post(`/messages/${id}/media/retry`, undefined, { schema: messageSchema });
}

/** `retryMessageMedia`, whose answer replaces the message in the ticket's loaded pages. */
export function useRetryMessageMedia(ticketUuid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: retryMessageMedia,
    onSuccess: (message) => queryClient.setQueryData<MessagesData>(messagesKeys.ticket(ticketUuid), (data) => upsertMessage(data, message)),
  });
}

export function useMessageAction<A>(run: (args: A) => Promise<unknown>) {
  return useMutation({ mutationFn: run });
}

/** The media of a message as a blob (the URL needs the bearer token). */
export function useMessageMedia(message: Pick<Message, 'id' | 'mediaUrl'>) {
  return useQuery({
    queryKey: messagesKeys.media(message.id),
    queryFn: ({ signal }) => api.blob(message.mediaUrl?.startsWith('/') ? message.mediaUrl : `/messages/${message.id}/media`, { signal }),
    enabled: !!message.mediaUrl,
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });
}
