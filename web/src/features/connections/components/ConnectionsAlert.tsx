import { useEffect } from 'react';
import { useConnections } from '../api/connections';
import { useConnectionsRealtime } from '../hooks/useConnectionsRealtime';
import { needsAttention } from '../types';

/**
 * The connection alert's check (spec 1 §9), mounted by `ConnectionsMenuBadge` once its delay has
 * passed: the connections, kept live, and whether any needs attention. A chunk of its own (the
 * connections' API and schemas), so the first load does not carry it. Renders nothing.
 */
export default function ConnectionsAlert({ onAlert }: { onAlert: (alert: boolean) => void }) {
  const connections = useConnections(true);
  useConnectionsRealtime();
  const alert = (connections.data ?? []).some((c) => needsAttention(c.status));
  useEffect(() => onAlert(alert), [alert, onAlert]);
  return null;
}
