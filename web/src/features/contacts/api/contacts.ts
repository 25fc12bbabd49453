/**
 * Contacts (docs/api.md "Contacts and tags"): `GET /contacts` (keyset: `cursor`, falling back to
 * `pageNumber`), `GET/PUT/DELETE /contacts/{id}`, `POST /contacts`, `PUT /contacts/block/{id}`,
 * `GET /contacts/export`, `POST /contacts/import/chats` (the contacts of a connection's phone), and
 * `POST /tickets` to open a ticket with a contact.
 */
import { infiniteQueryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { nextPageParam, type PageParam } from '../../../lib/api/pages';
import { checkedByCore } from '../../../lib/wasm/forms';
import { contactDetailSchema, contactSchema, type Contact } from '../types';

export const contactsPageSchema = z.object({
  contacts: z.array(contactSchema),
  count: z.nullish(z.number()),
  hasMore: z.catch(z.boolean(), false),
  nextCursor: z.nullish(z.string()),
});
export type ContactsPage = z.infer<typeof contactsPageSchema>;

export const contactsKeys = {
  all: ['contacts'] as const,
  lists: () => [...contactsKeys.all, 'list'] as const,
  list: (search: string, tagIds: readonly number[]) => [...contactsKeys.lists(), search, [...tagIds]] as const,
  detail: (id: number) => [...contactsKeys.all, 'detail', id] as const,
};

export function getContacts(search: string, tagIds: readonly number[], page: PageParam, signal?: AbortSignal): Promise<ContactsPage> {
  return api.get('/contacts', {
    params: { searchParam: search, ...(tagIds.length ? { contactTag: JSON.stringify(tagIds) } : {}), ...page },
    schema: contactsPageSchema,
    signal,
  });
}

export const contactsInfiniteQuery = (search: string, tagIds: readonly number[]) =>
  infiniteQueryOptions({
    queryKey: contactsKeys.list(search, tagIds),
    queryFn: ({ pageParam, signal }) => getContacts(search, tagIds, pageParam, signal),
    initialPageParam: { pageNumber: 1 } as PageParam,
    getNextPageParam: (last, _all, lastParam) => nextPageParam(last, lastParam),
  });

export function useContact(id: number | null) {
  return useQuery({
    queryKey: contactsKeys.detail(id ?? 0),
    queryFn: ({ signal }) => api.get(`/contacts/${id}`, { schema: contactDetailSchema, signal }),
    enabled: id !== null,
  });
}

/** Contact form (spec 1 §5): name, number and e-mail by the core's rules; extra fields filled. */
export const contactFormSchema = checkedByCore(
  z.object({
    name: z.string(),
    number: z.string(),
    email: z.string(),
    extraInfo: z.array(
      z.object({
        id: z.nullish(z.number()),
        name: z.string().check(z.trim(), z.minLength(1, 'REQUIRED')),
        value: z.string().check(z.trim(), z.minLength(1, 'REQUIRED')),
      }),
    ),
  }),
  (v) => ({ form: 'contact', name: v.name, number: v.number, email: v.email }),
);
export type ContactFormValues = z.infer<typeof contactFormSchema>;
export const CONTACT_FORM_FIELDS = ['name', 'number', 'email'] as const;

export const emptyContactForm: ContactFormValues = { name: '', number: '', email: '', extraInfo: [] };

/** The `ContactInput` body; an edited contact keeps its channel, group flag and connection. */
export function contactBody(values: ContactFormValues, current: Contact | null) {
  return {
    name: values.name.trim(),
    number: values.number.trim(),
    email: values.email.trim(),
    extraInfo: values.extraInfo.map((info) => ({ ...(info.id ? { id: info.id } : {}), name: info.name.trim(), value: info.value.trim() })),
    ...(current
      ? {
          channel: current.channel,
          isGroup: current.isGroup,
          whatsappId: current.whatsappId ?? null,
        }
      : {}),
  };
}

export function useSaveContact() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | null; body: ReturnType<typeof contactBody> }) =>
      id === null ? api.post('/contacts', body, { schema: contactSchema }) : api.put(`/contacts/${id}`, body, { schema: contactSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.all }),
  });
}

export function useDeleteContact() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/contacts/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.all }),
  });
}

/** `PUT /contacts/block/{id}` `{active}`: false blocks, true unblocks. */
export function useBlockContact() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, active }: { id: number; active: boolean }) => api.put(`/contacts/block/${id}`, { active }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.all }),
  });
}

/**
 * The report of `POST /contacts/import/chats`: the one-to-one chats the connection's phone knows
 * (`chats`), the contacts made of them, those whose number was already stored (left as they are)
 * and those left out.
 */
export const phoneImportReportSchema = z.object({
  whatsappId: z.number(),
  chats: z.number(),
  imported: z.number(),
  existing: z.number(),
  ignored: z.number(),
});
export type PhoneImportReport = z.infer<typeof phoneImportReportSchema>;

/**
 * Imports the contacts of a connection's phone. Errors: 502 `ERR_WAPP_NOT_INITIALIZED` (not
 * connected), 422 `ERR_CHANNEL_NOT_SUPPORTED`, 404 `ERR_NO_WAPP_FOUND`. The list is read again after.
 */
export function useImportFromPhone() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (whatsappId: number) => api.post('/contacts/import/chats', { whatsappId }, { schema: phoneImportReportSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.all }),
  });
}

const ticketRefSchema = z.looseObject({ id: z.number(), uuid: z.string() });

/** `POST /tickets` for a contact, as the current user, open. */
export function openTicket(contact: Contact, userId: number): Promise<z.infer<typeof ticketRefSchema>> {
  return api.post(
    '/tickets',
    { contactId: contact.id, queueId: null, whatsappId: contact.whatsappId ?? null, userId, status: 'open' },
    { schema: ticketRefSchema },
  );
}

/** The existing ticket a 409 `ERR_OTHER_OPEN_TICKET` carries. */
export const otherTicketSchema = z.looseObject({
  ticket: z.looseObject({
    id: z.nullish(z.number()),
    uuid: z.string(),
    userId: z.nullish(z.number()),
    user: z.nullish(z.looseObject({ name: z.string() })),
    queue: z.nullish(z.looseObject({ name: z.string() })),
  }),
});
export type OtherTicket = z.infer<typeof otherTicketSchema>['ticket'];

/** Downloads `GET /contacts/export` as a file. */
export async function exportContacts(): Promise<void> {
  const blob = await api.blob('/contacts/export');
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = 'contacts.xlsx';
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
