/**
 * Live contact changes on `company-{id}-contact`: `update`/`create` `{contact}` and `delete`
 * `{contactId}`. Known rows are patched in place; a new contact refreshes the lists.
 */
import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import type { PageParam } from '../../tags/api/tags';
import { contactsKeys, type ContactsPage } from '../api/contacts';
import { contactSchema, type Contact } from '../types';

type ContactsData = InfiniteData<ContactsPage, PageParam>;

interface ContactEvent {
  action?: string;
  contact?: unknown;
  contactId?: number;
}

function mapRows(data: ContactsData | undefined, fn: (rows: Contact[]) => Contact[]): ContactsData | undefined {
  return data ? { ...data, pages: data.pages.map((page) => ({ ...page, contacts: fn(page.contacts) })) } : data;
}

export function useContactsRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent<ContactEvent>('contact', (event) => {
    if (event.action === 'delete' && typeof event.contactId === 'number') {
      const id = event.contactId;
      queryClient.setQueriesData<ContactsData>({ queryKey: contactsKeys.lists() }, (data) => mapRows(data, (rows) => rows.filter((c) => c.id !== id)));
      return;
    }
    const parsed = contactSchema.safeParse(event.contact);
    if (!parsed.success) return;
    const contact = parsed.data;
    let known = false;
    queryClient.setQueriesData<ContactsData>({ queryKey: contactsKeys.lists() }, (data) =>
      mapRows(data, (rows) =>
        rows.map((c) => {
          if (c.id !== contact.id) return c;
          known = true;
          return { ...c, ...contact };
        }),
      ),
    );
    if (!known) void queryClient.invalidateQueries({ queryKey: contactsKeys.lists() });
  });
}
