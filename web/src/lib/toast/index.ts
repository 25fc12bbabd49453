export { toast, toastError, dismissToast, useToasts, clearToasts, TOAST_DURATION_MS } from './store';
export type { ToastItem, ToastSeverity } from './store';
