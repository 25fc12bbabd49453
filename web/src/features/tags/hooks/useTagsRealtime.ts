/**
 * Live tag changes on `company{id}-tag` (spec 2 §7 "Realtime"; note: no dash after "company").
 * Any event refreshes the tag lists.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getSocket, onSocketChange } from '../../../lib/socket';
import { useSession } from '../../../lib/session';
import { tagsKeys } from '../api/tags';

export function useTagsRealtime(): void {
  const queryClient = useQueryClient();
  const session = useSession();
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  useEffect(() => {
    if (!socket || companyId === null) return;
    const event = `company${companyId}-tag`;
    const listener = () => void queryClient.invalidateQueries({ queryKey: tagsKeys.all });
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, companyId, queryClient]);
}
