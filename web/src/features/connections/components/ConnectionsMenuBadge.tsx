import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { Badge } from '@mui/material';
import { withCatalogues } from '../../../lib/i18n';

/** Spec 1 §9: the connection alert is checked 2000 ms after the menu shows. */
export const CONNECTION_ALERT_DELAY_MS = 2000;

/**
 * The check itself, loaded when the delay has passed (not with the menu), with the connections'
 * Portuguese catalogue: its notices (a connection dropped, is back) are worded there.
 */
const ConnectionsAlert = lazy(withCatalogues(['connections'], () => import('./ConnectionsAlert')));

/**
 * Wraps the connections menu icon: a dot when any connection is in qrcode, PAIRING,
 * DISCONNECTED, TIMEOUT or OPENING, and a notice when a connection drops or is back. Only
 * mounted for users who see the entry.
 */
export function ConnectionsMenuBadge({ children }: { children: ReactNode }) {
  const [armed, setArmed] = useState(false);
  const [alert, setAlert] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setArmed(true), CONNECTION_ALERT_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    <>
      {armed && (
        <Suspense fallback={null}>
          <ConnectionsAlert onAlert={setAlert} />
        </Suspense>
      )}
      <Badge color="error" variant="dot" invisible={!alert} data-testid="menu-connections-badge" data-alert={alert ? 'true' : 'false'}>
        {children}
      </Badge>
    </>
  );
}
