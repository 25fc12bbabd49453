/** Route guards (spec 1 §2): session, subscription and capability. */
import { Suspense, type ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { PageLoader } from '../components/ui/PageLoader';
import { useSession } from '../lib/session';
import { ForbiddenPage } from './pages/ForbiddenPage';

/** Public pages: a signed-in user goes to "/". */
export function PublicOnly() {
  const session = useSession();
  if (session.status === 'loading') return <PageLoader />;
  if (session.status === 'authenticated') return <Navigate to="/" replace />;
  return (
    <Suspense fallback={<PageLoader />}>
      <Outlet />
    </Suspense>
  );
}

/** Private pages: an anonymous user goes to /login. */
export function RequireAuth() {
  const session = useSession();
  const location = useLocation();
  if (session.status === 'loading') return <PageLoader />;
  if (session.status === 'anonymous') return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return (
    <Suspense fallback={<PageLoader />}>
      <Outlet />
    </Suspense>
  );
}

/** An expired subscription leads to /financeiro-aberto (spec 1 §4). */
export function RequireActiveSubscription() {
  const session = useSession();
  if (session.status === 'authenticated' && session.subscription.status === 'expired') {
    return <Navigate to="/financeiro-aberto" replace />;
  }
  return <Outlet />;
}

/** A page the server did not grant shows the 403 page. */
export function RequireCapability({ capability, children }: { capability: string; children: ReactNode }) {
  const session = useSession();
  if (session.status !== 'authenticated' || !session.permissions.includes(capability)) return <ForbiddenPage />;
  return <Suspense fallback={<PageLoader />}>{children}</Suspense>;
}
