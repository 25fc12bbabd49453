import { useEffect, useState, type ReactNode } from 'react';
import { Badge } from '@mui/material';
import { useConnections } from '../api/connections';
import { useConnectionsRealtime } from '../hooks/useConnectionsRealtime';
import { needsAttention } from '../types';

/** Spec 1 §9: the connection alert is checked 2000 ms after the menu shows. */
export const CONNECTION_ALERT_DELAY_MS = 2000;

/**
 * Wraps the connections menu icon: a dot when any connection is in qrcode, PAIRING,
 * DISCONNECTED, TIMEOUT or OPENING. Only mounted for users who see the entry.
 */
export function ConnectionsMenuBadge({ children }: { children: ReactNode }) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setArmed(true), CONNECTION_ALERT_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  const connections = useConnections(armed);
  useConnectionsRealtime();
  const alert = armed && (connections.data ?? []).some((c) => needsAttention(c.status));
  return (
    <Badge color="error" variant="dot" invisible={!alert} data-testid="menu-connections-badge" data-alert={alert ? 'true' : 'false'}>
      {children}
    </Badge>
  );
}
