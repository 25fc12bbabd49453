import { Suspense } from 'react';
import { Box } from '@mui/material';
import { dismissToast, useToasts } from '../../lib/toast';
import { LazyAlert } from './LazyAlert';

/** Renders the toasts top-centre (spec 3 §2.1); the first one fetches MUI's Alert. */
export function Toaster() {
  const items = useToasts();
  return (
    <Box
      role="region"
      aria-live="polite"
      data-testid="toaster"
      sx={{
        position: 'fixed',
        top: 16,
        left: '50%',
        transform: 'translateX(-50%)',
        zIndex: (theme) => theme.zIndex.snackbar,
        display: 'flex',
        flexDirection: 'column',
        gap: 1,
        width: 'min(480px, calc(100vw - 32px))',
        pointerEvents: 'none',
      }}
    >
      <Suspense fallback={null}>
        {items.map((item) => (
          <LazyAlert
            key={item.id}
            severity={item.severity}
            variant="filled"
            onClose={() => dismissToast(item.id)}
            data-testid={`toast-${item.severity}`}
            sx={{ pointerEvents: 'auto', boxShadow: 3 }}
          >
            {item.message}
          </LazyAlert>
        ))}
      </Suspense>
    </Box>
  );
}
