/**
 * Live connection updates: `company-{id}-whatsapp` (`update` `{whatsapp}`, `delete`
 * `{whatsappId}`) and `company-{id}-whatsappSession` (`update` `{session}`: status, QR...).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { connectionsKeys, upsertConnection } from '../api/connections';
import { connectionSchema, type Connection } from '../types';

interface WhatsappEvent {
  action?: string;
  whatsapp?: unknown;
  whatsappId?: number;
  session?: unknown;
}

export function useConnectionsRealtime(): void {
  const queryClient = useQueryClient();
  const apply = (payload: unknown) => {
    const parsed = connectionSchema.safeParse(payload);
    if (!parsed.success) return;
    queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => upsertConnection(list, parsed.data));
    queryClient.setQueryData<Connection>(connectionsKeys.detail(parsed.data.id), (c) => (c ? { ...c, ...parsed.data } : c));
  };
  useCompanyEvent<WhatsappEvent>('whatsapp', (event) => {
    if (event.action === 'delete' && typeof event.whatsappId === 'number') {
      const id = event.whatsappId;
      queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => list?.filter((c) => c.id !== id));
      return;
    }
    if (event.action === 'update' || event.action === 'create') apply(event.whatsapp);
  });
  useCompanyEvent<WhatsappEvent>('whatsappSession', (event) => {
    if (event.action === 'update') apply(event.session);
  });
}
