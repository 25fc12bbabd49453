/** Refreshes queries when the company's socket event arrives (any payload: the lists re-read). */
import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { getSocket, onSocketChange } from '../socket';
import { useSession } from '../session';

/** Invalidates `queryKey` on the event `eventName(companyId)` of the signed-in user's company. */
export function useCompanyEventRefresh(eventName: (companyId: number) => string, queryKey: QueryKey): void {
  const queryClient = useQueryClient();
  const session = useSession();
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  const event = companyId === null ? null : eventName(companyId);
  const key = JSON.stringify(queryKey);
  useEffect(() => {
    if (!socket || event === null) return;
    const listener = () => void queryClient.invalidateQueries({ queryKey: JSON.parse(key) as QueryKey });
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, event, key, queryClient]);
}
