/**
 * Live old-message import progress: `importMessages-{companyId}` (not `company-{id}-...`), with
 * `update` `{status: {this, all, date, whatsappId}}` (`this` -1 while preparing) and `refresh`
 * `{whatsappId}` once an import ended (the connections and the inbox's lists are read again).
 * Every payload has `seq`: per connection, a report older than one already applied is dropped, so
 * a late `update` does not bring back a finished import. A new socket connection (a restarted
 * server counts `seq` afresh) forgets the reports: they come again with the next `update`.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { getSocket, importMessagesEvent, onSocketChange, useCompanySocketEvent } from '../../../lib/socket';
import { connectionsKeys } from '../api/connections';
import { refetchAfterImport } from '../api/import-messages';
import type { ImportProgress } from '../utils/import-messages';

const seqSchema = z.nullish(z.number());

const updateSchema = z.looseObject({
  action: z.literal('update'),
  seq: seqSchema,
  status: z.looseObject({ this: z.number(), all: z.number(), date: z.nullish(z.string()), whatsappId: z.number() }),
});

const refreshSchema = z.looseObject({ action: z.literal('refresh'), seq: seqSchema, whatsappId: z.number() });

/** The imports in progress, by connection id order. */
export function useImportProgress(): ImportProgress[] {
  const queryClient = useQueryClient();
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  const [progress, setProgress] = useState<Record<number, ImportProgress>>({});
  /** The highest `seq` applied per connection. */
  const lastSeq = useRef(new Map<number, number>());

  /** Records `seq` for the connection; false when an equal or newer report was already applied. */
  const isNewer = (whatsappId: number, seq: number | null | undefined): boolean => {
    if (typeof seq !== 'number') return true;
    const last = lastSeq.current.get(whatsappId);
    if (last !== undefined && seq <= last) return false;
    lastSeq.current.set(whatsappId, seq);
    return true;
  };

  useCompanySocketEvent<unknown>(importMessagesEvent, (payload) => {
    const update = updateSchema.safeParse(payload);
    if (update.success) {
      const { status, seq } = update.data;
      if (!isNewer(status.whatsappId, seq)) return;
      const report: ImportProgress = { whatsappId: status.whatsappId, done: status.this, total: status.all, date: status.date ?? null };
      setProgress((current) => ({ ...current, [report.whatsappId]: report }));
      return;
    }
    const refresh = refreshSchema.safeParse(payload);
    if (refresh.success) {
      const { whatsappId, seq } = refresh.data;
      // The end is applied whatever its order; it still keeps older reports out.
      isNewer(whatsappId, seq);
      setProgress((current) => {
        if (!(whatsappId in current)) return current;
        const next = { ...current };
        delete next[whatsappId];
        return next;
      });
      void refetchAfterImport(queryClient);
    }
  });

  useEffect(() => {
    if (!socket) return;
    const onConnect = () => {
      lastSeq.current.clear();
      setProgress({});
      void queryClient.invalidateQueries({ queryKey: connectionsKeys.list() });
    };
    socket.on('connect', onConnect);
    return () => {
      socket.off('connect', onConnect);
    };
  }, [socket, queryClient]);

  return Object.values(progress).sort((a, b) => a.whatsappId - b.whatsappId);
}
