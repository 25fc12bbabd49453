import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useSession } from '../session';
import { getSocket, onSocketChange } from './socket';

function subscribe(listener: () => void): () => void {
  return onSocketChange(listener);
}

/**
 * Subscribes to `company-{companyId}-{name}` while the component is mounted, e.g.
 * `useCompanyEvent('user', (data) => ...)`.
 */
export function useCompanyEvent<T = unknown>(name: string, handler: (payload: T) => void): void {
  const session = useSession();
  const socket = useSyncExternalStore(subscribe, getSocket, getSocket);
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  const handlerRef = useRef(handler);

  useEffect(() => {
    handlerRef.current = handler;
  });

  useEffect(() => {
    if (!socket || companyId === null) return;
    const event = `company-${companyId}-${name}`;
    const listener = (payload: T) => handlerRef.current(payload);
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, companyId, name]);
}
