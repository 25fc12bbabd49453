import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { Toaster } from '../components/ui';
import { queryClient } from '../lib/query-client';
import { AppThemeProvider } from '../lib/theme';
import { AppRoutes } from './AppRoutes';
import { SessionEffects } from './SessionEffects';

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <AppThemeProvider>
        <BrowserRouter>
          <SessionEffects />
          <AppRoutes />
          <Toaster />
        </BrowserRouter>
      </AppThemeProvider>
    </QueryClientProvider>
  );
}
