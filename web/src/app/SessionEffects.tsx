/**
 * Session side effects (spec 1 §4, §7): restore the session at start, keep the socket connected
 * while signed in, and sign out when the same user signs in elsewhere (the login page then says
 * so, see `lib/session/notice`).
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { restoreSession, setSignOutNotice, useSession, wireSessionSignals } from '../lib/session';
import { connectSocket, disconnectSocket, useCompanyEvent } from '../lib/socket';
import { toast } from '../lib/toast';

export const OTHER_SESSION_RELOAD_MS = 1000;

interface AuthEvent {
  action?: string;
  user?: { id?: number };
  sessionId?: string | number;
}

function OtherSessionWatcher({ userId, sessionId }: { userId: number; sessionId: string | null }) {
  const { t } = useTranslation();
  useCompanyEvent<AuthEvent>('auth', (event) => {
    if (event.user?.id !== userId || event.sessionId === undefined || event.sessionId === null) return;
    // Without our own session id we cannot tell our sign-in from another one: do nothing.
    if (sessionId === null || String(event.sessionId) === sessionId) return;
    toast.warning(t('session.otherComputer'));
    try {
      localStorage.clear();
      sessionStorage.clear();
    } catch {
      // storage unavailable
    }
    // After the reload the login page tells why the session ended.
    setSignOutNotice('elsewhere');
    setTimeout(() => window.location.reload(), OTHER_SESSION_RELOAD_MS);
  });
  return null;
}

export function SessionEffects() {
  const session = useSession();
  const userId = session.status === 'authenticated' ? session.user.id : null;

  useEffect(() => {
    wireSessionSignals();
    void restoreSession();
  }, []);

  useEffect(() => {
    if (userId === null) return;
    connectSocket(userId);
    return () => disconnectSocket();
  }, [userId]);

  if (session.status !== 'authenticated') return null;
  return <OtherSessionWatcher userId={session.user.id} sessionId={session.sessionId} />;
}
