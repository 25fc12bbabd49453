/**
 * The option lists of the inbox's filters and dialogs: tags, users, connections, queues (in
 * `./queues`) and the contact search of the new-ticket dialog. Any failure yields an empty list so
 * the inbox keeps working against a server that does not serve one of them yet.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../api';
import { tagSchema, type Tag } from './refs';

/** The lists keep the fields they do not name (classic zod's `.loose()`). */
function loose<T extends z.ZodMiniObject>(schema: T) {
  return z.catchall(schema, z.unknown());
}

async function orEmpty<T>(load: () => Promise<T[]>): Promise<T[]> {
  try {
    return await load();
  } catch {
    return [];
  }
}

export function useTagOptions() {
  return useQuery({
    queryKey: ['tickets', 'options', 'tags'],
    queryFn: () => orEmpty<Tag>(() => api.get('/tags/list', { schema: z.array(tagSchema) })),
    staleTime: 60_000,
  });
}

export const userOptionSchema = z.object({ id: z.number(), name: z.string() });
export type UserOption = z.infer<typeof userOptionSchema>;

export const userOptionsQuery = queryOptions({
  queryKey: ['tickets', 'options', 'users'],
  queryFn: () => orEmpty<UserOption>(() => api.get('/users/list', { schema: z.array(loose(userOptionSchema)) })),
  staleTime: 60_000,
});

export function useUserOptions(enabled = true) {
  return useQuery({ ...userOptionsQuery, enabled });
}

export const connectionOptionSchema = z.object({
  id: z.number(),
  name: z.string(),
  channel: z.nullish(z.string()),
  status: z.nullish(z.string()),
  isDefault: z.nullish(z.boolean()),
});
export type ConnectionOption = z.infer<typeof connectionOptionSchema>;

/** The company's connections; `fresh` reads them again on mount, for a choice that depends on their status. */
export function useConnectionOptions({ fresh = false }: { fresh?: boolean } = {}) {
  return useQuery({
    queryKey: ['tickets', 'options', 'connections'],
    queryFn: () =>
      orEmpty<ConnectionOption>(() => api.get('/whatsapp', { params: { session: 0 }, schema: z.array(loose(connectionOptionSchema)) })),
    staleTime: 60_000,
    ...(fresh ? { refetchOnMount: 'always' as const } : {}),
  });
}

export const contactOptionSchema = z.object({ id: z.number(), name: z.string(), number: z.nullish(z.string()) });
export type ContactOption = z.infer<typeof contactOptionSchema>;

/** `GET /contacts/list?searchParam=`: only from 3 characters (spec 1 §5). */
export function useContactSearch(search: string) {
  const term = search.trim();
  return useQuery({
    queryKey: ['tickets', 'options', 'contacts', term],
    queryFn: ({ signal }) =>
      api.get('/contacts/list', {
        params: { searchParam: term },
        schema: z.union([
          z.array(loose(contactOptionSchema)),
          z.pipe(
            z.object({ contacts: z.array(loose(contactOptionSchema)) }),
            z.transform((r) => r.contacts),
          ),
        ]),
        signal,
      }),
    enabled: term.length >= 3,
  });
}
