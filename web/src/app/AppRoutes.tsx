import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { PublicOnly, RequireActiveSubscription, RequireAuth, RequireCapability } from './guards';
import { PLANNED_ROUTES, builtEntries } from './routes';
import { withCatalogues } from '../lib/i18n';

const LoginPage = lazy(() => import('../features/auth/components/LoginPage'));
const SignupPage = lazy(withCatalogues(['signup'], () => import('../features/auth/components/SignupPage')));
const ForgotPasswordPage = lazy(() => import('../features/auth/components/ForgotPasswordPage'));
const AppShell = lazy(() => import('./layout/AppShell'));
const Landing = lazy(() => import('./pages/Landing'));
const SubscriptionExpiredPage = lazy(() => import('./pages/SubscriptionExpiredPage'));
const NotAvailablePage = lazy(() => import('./pages/NotAvailablePage'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage'));

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<PublicOnly />}>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/signup" element={<SignupPage />} />
        <Route path="/forgetpsw" element={<ForgotPasswordPage />} />
      </Route>
      <Route element={<RequireAuth />}>
        <Route path="/financeiro-aberto" element={<SubscriptionExpiredPage />} />
        <Route element={<RequireActiveSubscription />}>
          <Route element={<AppShell />}>
            <Route index element={<Landing />} />
            {builtEntries()
              .filter((entry) => entry.path !== '/')
              .map((entry) => {
                const Page = entry.page!;
                return (
                  <Route
                    key={entry.id}
                    path={entry.nested ? `${entry.path}/*` : entry.path}
                    element={
                      <RequireCapability capability={entry.pageCapability}>
                        <Page />
                      </RequireCapability>
                    }
                  />
                );
              })}
            {PLANNED_ROUTES.map((path) => (
              <Route key={path} path={path} element={<NotAvailablePage />} />
            ))}
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Route>
      </Route>
    </Routes>
  );
}
