/** Live schedule changes on `company-{id}-schedule` (create, update, delete): the lists refresh. */
import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getSocket, onSocketChange } from '../../../lib/socket';
import { useSession } from '../../../lib/session';
import { schedulesKeys } from '../api/schedules';

export function useSchedulesRealtime(): void {
  const queryClient = useQueryClient();
  const session = useSession();
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  useEffect(() => {
    if (!socket || companyId === null) return;
    const event = `company-${companyId}-schedule`;
    const listener = () => void queryClient.invalidateQueries({ queryKey: schedulesKeys.all });
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, companyId, queryClient]);
}
