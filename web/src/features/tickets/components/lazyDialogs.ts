/**
 * The inbox's dialogs that open on a click (or on the server's answer to one), each imported
 * lazily (`React.lazy`) and rendered through `WhenOpened`: their chunks (MUI's Dialog, the new
 * ticket's contact search and Autocomplete, the transfer's queue and user lookups) are not in the
 * inbox's first load.
 */
import { lazy } from 'react';

export const ConfirmDialog = lazy(() => import('../../../components/ui/ConfirmDialog').then((m) => ({ default: m.ConfirmDialog })));
export const NewTicketDialog = lazy(() => import('./NewTicketDialog').then((m) => ({ default: m.NewTicketDialog })));
export const ResolveDialog = lazy(() => import('./ResolveDialog').then((m) => ({ default: m.ResolveDialog })));
export const TicketAlreadyOpenDialog = lazy(() => import('./TicketAlreadyOpenDialog').then((m) => ({ default: m.TicketAlreadyOpenDialog })));
export const TransferDialog = lazy(() => import('./TransferDialog').then((m) => ({ default: m.TransferDialog })));
