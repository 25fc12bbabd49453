import { Suspense, useState, type ReactNode } from 'react';

/**
 * Renders a lazily imported dialog (`React.lazy`) from its first opening on: its chunk is fetched
 * when the user first opens it, not with the page, and it stays mounted afterwards, so it closes
 * with its transition and opens again at once. While the chunk loads nothing is shown (it is small
 * and the click that opens it has just happened).
 */
export function WhenOpened({ open, children }: { open: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened ? <Suspense fallback={null}>{children}</Suspense> : null;
}
