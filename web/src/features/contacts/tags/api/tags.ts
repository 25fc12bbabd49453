/**
 * Tags (docs/api.md "Contacts and tags"): `GET /tags?searchParam=&pageNumber=` (or `cursor`),
 * `GET /tags/list`, `POST /tags`, `PUT /tags/{id}`, `DELETE /tags/{id}`, `POST /tags/sync`,
 * `GET /contactTags/{contactId}`.
 */
import { infiniteQueryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../../lib/api';
import { nextPageParam, type PageParam } from '../../../../lib/api/pages';
import { checkedByCore } from '../../../../lib/wasm/forms';
import { tagSchema, type Tag } from '../types';

export const tagsPageSchema = z.object({
  tags: z.array(tagSchema),
  count: z.nullish(z.number()),
  hasMore: z.catch(z.boolean(), false),
  nextCursor: z.nullish(z.string()),
});
export type TagsPage = z.infer<typeof tagsPageSchema>;

export const tagsKeys = {
  all: ['tags'] as const,
  lists: () => [...tagsKeys.all, 'list'] as const,
  list: (search: string) => [...tagsKeys.lists(), search] as const,
  options: () => [...tagsKeys.all, 'options'] as const,
  contact: (contactId: number) => [...tagsKeys.all, 'contact', contactId] as const,
};

export const tagsInfiniteQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: tagsKeys.list(search),
    queryFn: ({ pageParam, signal }) => api.get('/tags', { params: { searchParam: search, ...pageParam }, schema: tagsPageSchema, signal }),
    initialPageParam: { pageNumber: 1 } as PageParam,
    getNextPageParam: (last, _all, lastParam) => nextPageParam(last, lastParam),
  });

const tagListSchema = z.union([z.array(tagSchema), z.pipe(z.object({ tags: z.array(tagSchema) }), z.transform((r) => r.tags))]);

/** Every tag of the company (filters, the contact modal). */
export function useTagOptions(enabled = true) {
  return useQuery({
    queryKey: tagsKeys.options(),
    queryFn: ({ signal }) => api.get('/tags/list', { schema: tagListSchema, signal }),
    enabled,
    staleTime: 30_000,
  });
}

/** The tag form: the name by the core's rule ("Tag muito curta!" when too short), the picker's colour. */
export const tagFormSchema = checkedByCore(
  z.object({
    name: z.string(),
    color: z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'INVALID_FORMAT')),
    kanban: z.boolean(),
  }),
  (v) => ({ form: 'tag', name: v.name }),
  { name: { TOO_SHORT: 'tags.tooShort' } },
);
export type TagFormValues = z.infer<typeof tagFormSchema>;
export const TAG_FORM_FIELDS = Object.keys(tagFormSchema.shape) as (keyof TagFormValues)[];

export function tagBody(values: TagFormValues) {
  return { name: values.name.trim(), color: values.color, kanban: values.kanban ? 1 : 0 };
}

export function useSaveTag() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | null; body: ReturnType<typeof tagBody> }) =>
      id === null ? api.post('/tags', body, { schema: tagSchema }) : api.put(`/tags/${id}`, body, { schema: tagSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tagsKeys.all }),
  });
}

export function useDeleteTag() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/tags/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tagsKeys.all }),
  });
}

/** `POST /tags/sync` `{contactId, tags: [{id}]}`: the contact's tags become exactly these. */
export function syncContactTags(contactId: number, tags: Pick<Tag, 'id'>[]): Promise<unknown> {
  return api.post('/tags/sync', { contactId, tags: tags.map((tag) => ({ id: tag.id })) });
}
