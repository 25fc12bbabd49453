/** Live quick-message changes on `company-{id}-quickmessage`: any event refreshes the lists. */
import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getSocket, onSocketChange } from '../../../lib/socket';
import { useSession } from '../../../lib/session';
import { quickMessagesKeys } from '../api/quick-messages';

export function useQuickMessagesRealtime(): void {
  const queryClient = useQueryClient();
  const session = useSession();
  const socket = useSyncExternalStore(onSocketChange, getSocket, getSocket);
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  useEffect(() => {
    if (!socket || companyId === null) return;
    const event = `company-${companyId}-quickmessage`;
    const listener = () => void queryClient.invalidateQueries({ queryKey: quickMessagesKeys.all });
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, companyId, queryClient]);
}
