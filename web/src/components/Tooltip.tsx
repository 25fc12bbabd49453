import { lazy, Suspense } from 'react';
import type { TooltipProps } from '@mui/material/Tooltip';

/** MUI's Tooltip with Popper (popper.js), about 11 KB gzipped: a chunk of its own. */
const MuiTooltip = lazy(() => import('@mui/material/Tooltip'));

/**
 * MUI's Tooltip, for the screens of the first load (the top bar, the side menu, the inbox list):
 * its chunk is fetched when the first of them renders, not before, and until it is in, the
 * wrapped element shows without its tooltip (a hint on hover, not needed to show the screen).
 */
export function Tooltip(props: TooltipProps) {
  return (
    <Suspense fallback={props.children}>
      <MuiTooltip {...props} />
    </Suspense>
  );
}
