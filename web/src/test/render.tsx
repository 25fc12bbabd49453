import { render } from '@testing-library/react';
import { App } from '../app/App';
import { queryClient } from '../lib/query-client';
import { sessionStore } from '../lib/session';
import { clearToasts } from '../lib/toast';

/** Renders the whole app at `path` with a fresh session and cache. */
export function renderApp(path: string) {
  queryClient.clear();
  clearToasts();
  sessionStore.set({ status: 'loading' });
  window.history.pushState({}, '', path);
  return render(<App />);
}
