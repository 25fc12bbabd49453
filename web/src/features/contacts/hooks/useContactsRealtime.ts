/**
 * Live contact changes on `company-{id}-contact`: `update`/`create` `{contact}` and `delete`
 * `{contactId}`. Known rows are patched in place; a new contact refreshes the lists.
 */
import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { hasPageRow, removePageRow, upsertPageRow, type PageParam } from '../../../lib/api/pages';
import { contactsKeys, type ContactsPage } from '../api/contacts';
import { contactSchema } from '../types';

type ContactsData = InfiniteData<ContactsPage, PageParam>;

interface ContactEvent {
  action?: string;
  contact?: unknown;
  contactId?: number;
}

export function useContactsRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent<ContactEvent>('contact', (event) => {
    if (event.action === 'delete' && typeof event.contactId === 'number') {
      const id = event.contactId;
      queryClient.setQueriesData<ContactsData>({ queryKey: contactsKeys.lists() }, (data) => removePageRow(data, 'contacts', id));
      return;
    }
    const parsed = contactSchema.safeParse(event.contact);
    if (!parsed.success) return;
    const contact = parsed.data;
    const lists = queryClient.getQueriesData<ContactsData>({ queryKey: contactsKeys.lists() });
    const known = lists.some(([, data]) => hasPageRow(data, 'contacts', contact.id));
    queryClient.setQueriesData<ContactsData>({ queryKey: contactsKeys.lists() }, (data) => upsertPageRow(data, 'contacts', contact));
    if (!known) void queryClient.invalidateQueries({ queryKey: contactsKeys.lists() });
  });
}
