/** `GET /contacts/list?searchParam=` for the forward and send-contact dialogs (from 3 characters). */
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../../lib/api';

export const contactPickSchema = z.looseObject({ id: z.number(), name: z.string(), number: z.nullish(z.string()) });
export type ContactPick = z.infer<typeof contactPickSchema>;

const listSchema = z.union([z.array(contactPickSchema), z.pipe(z.object({ contacts: z.array(contactPickSchema) }), z.transform((r) => r.contacts))]);

export function useContactPick(search: string) {
  const term = search.trim();
  return useQuery({
    queryKey: ['messages', 'contacts', term],
    queryFn: ({ signal }) => api.get('/contacts/list', { params: { searchParam: term }, schema: listSchema, signal }),
    enabled: term.length >= 3,
  });
}
