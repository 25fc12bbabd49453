/**
 * Object URLs for blobs, treated as an external resource: a URL is created when the first
 * component shows a blob and revoked as soon as the last one stops (the blob changed or the
 * component unmounted). Components showing the same blob share one URL.
 */
import { useCallback, useSyncExternalStore } from 'react';

interface Entry {
  url: string;
  users: number;
}

const entries = new Map<Blob, Entry>();

function acquire(blob: Blob): void {
  const entry = entries.get(blob);
  if (entry) entry.users += 1;
  else entries.set(blob, { url: URL.createObjectURL(blob), users: 1 });
}

function release(blob: Blob): void {
  const entry = entries.get(blob);
  if (!entry) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  entries.delete(blob);
  URL.revokeObjectURL(entry.url);
}

const noop = () => undefined;

/** The object URL of `blob` while the calling component shows it; undefined without a blob. */
export function useObjectUrl(blob: Blob | undefined): string | undefined {
  const subscribe = useCallback(
    (notify: () => void) => {
      if (!blob) return noop;
      acquire(blob);
      notify();
      return () => release(blob);
    },
    [blob],
  );
  const snapshot = () => (blob ? entries.get(blob)?.url : undefined);
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
