import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from '../../../lib/toast';
import { useConnections } from '../api/connections';
import { useConnectionsRealtime } from '../hooks/useConnectionsRealtime';
import { needsAttention } from '../types';
import { statusChanges, type SeenConnections } from '../utils/status-changes';

/**
 * The connection alert's check (spec 1 §9), mounted by `ConnectionsMenuBadge` once its delay has
 * passed: the connections, kept live, and whether any needs attention. A chunk of its own (the
 * connections' API and schemas), so the first load does not carry it. Renders nothing.
 *
 * It also tells when a connection drops and when it is back (docs/channels.md "Gaps after an
 * outage"): each change of the cached connections (written by the socket's `whatsapp` and
 * `whatsappSession` updates, whichever hook heard them first) is compared with the statuses it
 * last saw; the first load announces nothing.
 */
export default function ConnectionsAlert({ onAlert }: { onAlert: (alert: boolean) => void }) {
  const { t } = useTranslation();
  const connections = useConnections(true);
  useConnectionsRealtime();
  const alert = (connections.data ?? []).some((c) => needsAttention(c.status));
  useEffect(() => onAlert(alert), [alert, onAlert]);

  const seen = useRef<SeenConnections | null>(null);
  useEffect(() => {
    if (!connections.data) return;
    const { changes, seen: next } = statusChanges(seen.current, connections.data);
    seen.current = next;
    for (const change of changes) {
      if (change.kind === 'dropped') toast.warning(t('connections.alerts.dropped', { name: change.name }));
      else toast.success(t('connections.alerts.back', { name: change.name }));
    }
  }, [connections.data, t]);
  return null;
}
