import { lazy } from 'react';

/**
 * MUI's Alert (with its severity icons) as a chunk of its own, for the toasts and the inbox's
 * notices: they show after an event, so the first load does not carry it. Render it inside
 * `Suspense`.
 */
export const LazyAlert = lazy(() => import('@mui/material/Alert'));
