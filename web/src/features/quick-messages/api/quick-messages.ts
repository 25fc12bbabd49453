/**
 * Quick messages (docs/quick-messages.md): `GET /quick-messages?searchParam=&pageNumber=`,
 * `POST /quick-messages`, `PUT`/`DELETE /quick-messages/{id}`,
 * `POST`/`DELETE /quick-messages/{id}/media-upload`.
 */
import { infiniteQueryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { quickMessageSchema } from '../types';

export const quickMessagesPageSchema = z.object({
  records: z.array(quickMessageSchema),
  count: z.nullish(z.number()),
  hasMore: z.catch(z.boolean(), false),
});

export const quickMessagesKeys = {
  all: ['quick-messages'] as const,
  list: (search: string) => [...quickMessagesKeys.all, 'list', search] as const,
};

export const quickMessagesInfiniteQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: quickMessagesKeys.list(search),
    queryFn: ({ pageParam, signal }) =>
      api.get('/quick-messages', { params: { searchParam: search, pageNumber: pageParam }, schema: quickMessagesPageSchema, signal }),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
  });

export const quickMessageFormSchema = z.object({
  shortcode: z.string().check(z.trim(), z.minLength(1, 'REQUIRED'), z.maxLength(100, 'TOO_LONG')),
  message: z.string().check(z.maxLength(10000, 'TOO_LONG')),
  geral: z.boolean(),
});
export type QuickMessageFormValues = z.infer<typeof quickMessageFormSchema>;
export const QUICK_MESSAGE_FORM_FIELDS = Object.keys(quickMessageFormSchema.shape) as (keyof QuickMessageFormValues)[];

export interface SaveQuickMessage {
  id: number | null;
  values: QuickMessageFormValues;
  /** A file to attach after saving. */
  file: File | null;
  /** Remove the stored file. */
  removeFile: boolean;
}

/** Saves the form, then attaches or removes the file. */
export async function saveQuickMessage({ id, values, file, removeFile }: SaveQuickMessage) {
  const body = { shortcode: values.shortcode.trim(), message: values.message, geral: values.geral, isMedia: file !== null };
  let saved = id === null
    ? await api.post('/quick-messages', body, { schema: quickMessageSchema })
    : await api.put(`/quick-messages/${id}`, body, { schema: quickMessageSchema });
  if (file) {
    const form = new FormData();
    form.append('typeArch', 'quickMessage');
    form.append('file', file);
    saved = await api.post(`/quick-messages/${saved.id}/media-upload`, form, { schema: quickMessageSchema });
  } else if (removeFile && saved.isMedia) {
    saved = await api.delete(`/quick-messages/${saved.id}/media-upload`, { schema: quickMessageSchema });
  }
  return saved;
}

export function useSaveQuickMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveQuickMessage,
    onSettled: () => queryClient.invalidateQueries({ queryKey: quickMessagesKeys.all }),
  });
}

export function useDeleteQuickMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/quick-messages/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: quickMessagesKeys.all }),
  });
}
