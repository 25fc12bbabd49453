/** `GET /contacts/list?searchParam=` for the forward and send-contact dialogs (from 3 characters). */
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../../lib/api';

export const contactPickSchema = z.object({ id: z.number(), name: z.string(), number: z.string().nullish() }).loose();
export type ContactPick = z.infer<typeof contactPickSchema>;

const listSchema = z.union([z.array(contactPickSchema), z.object({ contacts: z.array(contactPickSchema) }).transform((r) => r.contacts)]);

export function useContactPick(search: string) {
  const term = search.trim();
  return useQuery({
    queryKey: ['messages', 'contacts', term],
    queryFn: ({ signal }) => api.get('/contacts/list', { params: { searchParam: term }, schema: listSchema, signal }),
    enabled: term.length >= 3,
  });
}
