/**
 * Toasts: top-centre, closing after 3000 ms (spec 3 §2.1). Any module may raise one; the
 * <Toaster/> in the app shell renders them.
 */
import { useSyncExternalStore } from 'react';
import i18n from '../i18n';
import { translateError } from '../i18n/errors';

export type ToastSeverity = 'success' | 'info' | 'warning' | 'error';
export interface ToastItem {
  id: number;
  message: string;
  severity: ToastSeverity;
}

export const TOAST_DURATION_MS = 3000;
const MAX_VISIBLE = 4;

let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of [...listeners]) listener();
}

export function dismissToast(id: number): void {
  const next = items.filter((item) => item.id !== id);
  if (next.length !== items.length) {
    items = next;
    emit();
  }
}

function push(severity: ToastSeverity, message: string): number {
  const id = nextId++;
  // The same text twice in a row is shown once.
  items = [...items.filter((item) => item.message !== message), { id, message, severity }].slice(-MAX_VISIBLE);
  emit();
  setTimeout(() => dismissToast(id), TOAST_DURATION_MS);
  return id;
}

export const toast = {
  success: (message: string) => push('success', message),
  info: (message: string) => push('info', message),
  warning: (message: string) => push('warning', message),
  error: (message: string) => push('error', message),
};

/** Shows any failure as a translated error toast. */
export function toastError(error: unknown): number {
  return push('error', translateError(error, i18n.t));
}

const store = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: () => items,
};

export function useToasts(): ToastItem[] {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/** For tests. */
export function clearToasts(): void {
  items = [];
  emit();
}
