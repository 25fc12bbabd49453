import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useSession } from '../session';
import { getSocket, onSocketChange } from './socket';

function subscribe(listener: () => void): () => void {
  return onSocketChange(listener);
}

/**
 * Subscribes to the event `eventName(companyId)` of the signed-in user's company while the
 * component is mounted, for events not named `company-{id}-...`, e.g.
 * `useCompanySocketEvent((id) => \`importMessages-${id}\`, (data) => ...)`.
 */
export function useCompanySocketEvent<T = unknown>(eventName: (companyId: number) => string, handler: (payload: T) => void): void {
  const session = useSession();
  const socket = useSyncExternalStore(subscribe, getSocket, getSocket);
  const companyId = session.status === 'authenticated' ? session.user.companyId : null;
  const event = companyId === null ? null : eventName(companyId);
  const handlerRef = useRef(handler);

  useEffect(() => {
    handlerRef.current = handler;
  });

  useEffect(() => {
    if (!socket || event === null) return;
    const listener = (payload: T) => handlerRef.current(payload);
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, event]);
}

/**
 * Subscribes to `company-{companyId}-{name}` while the component is mounted, e.g.
 * `useCompanyEvent('user', (data) => ...)`.
 */
export function useCompanyEvent<T = unknown>(name: string, handler: (payload: T) => void): void {
  useCompanySocketEvent<T>((companyId) => `company-${companyId}-${name}`, handler);
}
