import { Navigate } from 'react-router';
import { useAuthenticatedSession } from '../../lib/session';
import { landingPath } from '../routes';
import { HomePage } from './HomePage';

/** "/": the first menu entry the user has, else the home view. */
export default function Landing() {
  const { permissions } = useAuthenticatedSession();
  const path = landingPath(permissions);
  if (path && path !== '/') return <Navigate to={path} replace />;
  return <HomePage />;
}
