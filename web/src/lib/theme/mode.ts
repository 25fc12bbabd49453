/** The light/dark choice, kept in localStorage `preferredTheme`. */
import { useSyncExternalStore } from 'react';

export type ThemeMode = 'light' | 'dark';
const KEY = 'preferredTheme';

function read(): ThemeMode {
  try {
    return localStorage.getItem(KEY) === 'dark' ? 'dark' : 'light';
  } catch {
    return 'light';
  }
}

let mode: ThemeMode = read();
const listeners = new Set<() => void>();

export function hasStoredThemeMode(): boolean {
  try {
    return localStorage.getItem(KEY) !== null;
  } catch {
    return false;
  }
}

export function getThemeMode(): ThemeMode {
  return mode;
}

export function setThemeMode(next: ThemeMode): void {
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  if (next === mode) return;
  mode = next;
  for (const listener of [...listeners]) listener();
}

export function toggleThemeMode(): void {
  setThemeMode(mode === 'light' ? 'dark' : 'light');
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useThemeMode(): ThemeMode {
  return useSyncExternalStore(subscribe, getThemeMode, getThemeMode);
}
