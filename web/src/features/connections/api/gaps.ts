/**
 * Gaps after an outage (docs/api.md "Connections", docs/channels.md "Gaps after an outage"):
 * `DELETE /whatsapp/{id}/gap` → 204 hides the connection's `lastGap` (same users as the session
 * actions; 404 `ERR_NO_WAPP_FOUND`). The server then sends the connection's `whatsapp` update with
 * `lastGap: null`.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api';
import type { Connection } from '../types';
import { connectionsKeys } from './connections';

export function dismissGap(id: number): Promise<unknown> {
  return api.delete(`/whatsapp/${id}/gap`);
}

/** Dismisses a connection's last gap; the row loses it at once (the server's update event says the same). */
export function useDismissGap() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => dismissGap(id),
    onSuccess: (_, id) => {
      queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => list?.map((c) => (c.id === id ? { ...c, lastGap: null } : c)));
      queryClient.setQueryData<Connection>(connectionsKeys.detail(id), (c) => (c ? { ...c, lastGap: null } : c));
    },
  });
}
