import { useState } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { Toaster } from '../components/ui/Toaster';
import { queryClient } from '../lib/query-client';
import { AppThemeProvider } from '../lib/theme';
import { AppRoutes } from './AppRoutes';
import { SessionEffects } from './SessionEffects';

function Root() {
  return (
    <>
      <SessionEffects />
      <AppRoutes />
      <Toaster />
    </>
  );
}

/** A data router around the app's routes, so a page can hold a navigation (`useBlocker`) while it has unsaved edits. */
function createRouter() {
  return createBrowserRouter([{ path: '*', element: <Root /> }]);
}

export function App() {
  // One router per mounted app, reading the address it starts at.
  const [router] = useState(createRouter);
  return (
    <QueryClientProvider client={queryClient}>
      <AppThemeProvider>
        <RouterProvider router={router} />
      </AppThemeProvider>
    </QueryClientProvider>
  );
}
