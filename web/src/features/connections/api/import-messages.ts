/**
 * Old-message import (spec 2 "Old-message import"): `POST /closedimported/{id}` closes the
 * connection's imported tickets still pending, `{closed}` their number; the connection's
 * `statusImportMessages` then becomes null (it also arrives by `company-{id}-whatsapp`).
 */
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import type { Connection } from '../types';
import { connectionsKeys } from './connections';

/** The inbox's queries (its lists, counts and options): imported tickets change them. */
export const TICKETS_QUERY_KEY = ['tickets'] as const;

const closedSchema = z.object({ closed: z.catch(z.number(), 0) });

export function closeImportedTickets(id: number): Promise<number> {
  return api.post(`/closedimported/${id}`, undefined, { schema: closedSchema }).then((r) => r.closed);
}

/** After an import changed tickets: the connections and the inbox's lists are read again. */
export function refetchAfterImport(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: connectionsKeys.list() }),
    queryClient.invalidateQueries({ queryKey: TICKETS_QUERY_KEY }),
  ]);
}

/** Closes a connection's imported tickets; resolves to how many were closed. */
export function useCloseImportedTickets() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => closeImportedTickets(id),
    onSuccess: (_, id) => {
      // The button goes at once; the server's own update event says the same.
      queryClient.setQueryData<Connection[]>(connectionsKeys.list(), (list) => list?.map((c) => (c.id === id ? { ...c, statusImportMessages: null } : c)));
      void refetchAfterImport(queryClient);
    },
  });
}
