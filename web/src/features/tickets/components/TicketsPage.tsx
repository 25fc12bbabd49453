import { lazy, Suspense, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { Box, Button, Paper, Tab, Tabs, Typography, useMediaQuery } from '@mui/material';
import ChatIcon from '@mui/icons-material/ChatOutlined';
import { useLocation, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LazyAlert } from '../../../components/ui/LazyAlert';
import { PageLoader } from '../../../components/ui/PageLoader';
import { useAuthenticatedSession, sessionStore } from '../../../lib/session';
import { toastError } from '../../../lib/toast';
import { saveTicketsWidth } from '../api/tickets';
import { clampWidth, PANEL_DEFAULT } from '../format';
import { MOBILE_QUERY } from '../layout';
import { missingTicketOf } from '../missing';
import { useInboxRealtime } from '../hooks/useInboxRealtime';
import { TicketsManager } from './TicketsManager';

/**
 * The open ticket (the conversation, its composer and dialogs) is a chunk of its own, fetched when
 * a ticket is opened: the list at /tickets, the inbox's first load, does not wait for it.
 */
const TicketView = lazy(() => import('./TicketView').then((m) => ({ default: m.TicketView })));

/** The open ticket, its chunk loading behind the page's loader. */
function OpenTicket({ uuid }: { uuid: string }) {
  return (
    <Suspense fallback={<PageLoader />}>
      <TicketView key={uuid} uuid={uuid} />
    </Suspense>
  );
}

/**
 * The page fills the window below the top bar, exactly (docs/inbox.md "Layout"): a flex basis of
 * 0 px, not 0 %, so its content never makes the shell, and the window, grow; the conversation and
 * the list scroll inside it. On phones it also takes the shell's padding, edge to edge.
 */
const PAGE_SX = {
  flex: '1 1 0px',
  minHeight: 0,
  overflow: 'hidden',
  mx: { xs: -2, sm: 0 },
  mt: { xs: -2, sm: 0 },
  mb: { xs: -2, sm: 0 },
  borderRadius: { xs: 0, sm: 1 },
} as const;

function Placeholder({ onSelect }: { onSelect?: () => void }) {
  const { t } = useTranslation();
  return (
    <Box sx={{ flex: 1, display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', gap: 2, color: 'text.secondary', p: 3 }} data-testid="ticket-placeholder">
      <ChatIcon sx={{ fontSize: 64 }} />
      <Typography>{t('tickets.placeholder')}</Typography>
      {onSelect && (
        <Button variant="contained" onClick={onSelect} data-testid="ticket-select">
          {t('tickets.selectTicket')}
        </Button>
      )}
    </Box>
  );
}

/** /tickets and /tickets/{uuid}: the resizable inbox panel and the open ticket. */
export default function TicketsPage() {
  const { t } = useTranslation();
  const params = useParams();
  const uuid = (params['*'] ?? '').split('/')[0] || undefined;
  const location = useLocation();
  const navigate = useNavigate();
  // A ticket that could not be opened (missing.ts): the list, with a notice.
  const missing = uuid ? null : missingTicketOf(location.state);
  const notice = missing !== null && (
    <Suspense fallback={null}>
      <LazyAlert severity="warning" closeText={t('common.close')} onClose={() => navigate('/tickets', { replace: true, state: null })} sx={{ m: 1 }} data-testid="tickets-missing-notice">
        {t('tickets.notFound')}
      </LazyAlert>
    </Suspense>
  );
  const { user } = useAuthenticatedSession();
  const mobile = useMediaQuery(MOBILE_QUERY);
  const [width, setWidth] = useState(() => clampWidth(user.defaultTicketsManagerWidth ?? PANEL_DEFAULT));
  const [mobileTab, setMobileTab] = useState<'list' | 'ticket'>(uuid ? 'ticket' : 'list');
  // Opening a ticket on a phone shows it; leaving it shows the list.
  const [seenUuid, setSeenUuid] = useState(uuid);
  if (uuid !== seenUuid) {
    setSeenUuid(uuid);
    setMobileTab(uuid ? 'ticket' : 'list');
  }
  const drag = useRef<{ startX: number; startWidth: number } | null>(null);
  useInboxRealtime();

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    drag.current = { startX: event.clientX, startWidth: width };
    const move = (e: PointerEvent) => {
      if (drag.current) setWidth(clampWidth(drag.current.startWidth + e.clientX - drag.current.startX));
    };
    const up = (e: PointerEvent) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      const start = drag.current;
      drag.current = null;
      if (!start) return;
      const next = clampWidth(start.startWidth + e.clientX - start.startX);
      setWidth(next);
      if (next !== start.startWidth) {
        saveTicketsWidth(user.id, next)
          .then(() => {
            const session = sessionStore.get();
            if (session.status === 'authenticated') sessionStore.update({ user: { ...session.user, defaultTicketsManagerWidth: next } });
          })
          .catch(toastError);
      }
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };

  if (mobile) {
    return (
      <Paper sx={{ ...PAGE_SX, display: 'flex', flexDirection: 'column' }} data-testid="tickets-page" data-layout="mobile">
        <Tabs value={mobileTab} onChange={(_e, value: 'list' | 'ticket') => setMobileTab(value)} variant="fullWidth" sx={{ borderBottom: 1, borderColor: 'divider', flexShrink: 0 }}>
          <Tab value="ticket" label={t('tickets.mobile.ticket')} data-testid="tickets-mobile-ticket" />
          <Tab value="list" label={t('tickets.mobile.list')} data-testid="tickets-mobile-list" />
        </Tabs>
        {notice}
        <Box sx={{ flex: '1 1 0px', minHeight: 0, display: 'flex', flexDirection: 'column' }}>
          {mobileTab === 'ticket' ? (
            uuid ? <OpenTicket uuid={uuid} /> : <Placeholder onSelect={() => setMobileTab('list')} />
          ) : (
            <TicketsManager selectedUuid={uuid} />
          )}
        </Box>
      </Paper>
    );
  }

  return (
    <Paper sx={{ ...PAGE_SX, display: 'flex' }} data-testid="tickets-page" data-layout="wide">
      <Box sx={{ width, flexShrink: 0, display: 'flex', flexDirection: 'column', minHeight: 0 }} data-testid="tickets-panel" data-width={width}>
        <TicketsManager selectedUuid={uuid} />
      </Box>
      <Box
        role="separator"
        aria-orientation="vertical"
        aria-valuemin={404}
        aria-valuemax={700}
        aria-valuenow={width}
        onPointerDown={onPointerDown}
        data-testid="tickets-resizer"
        sx={{ width: 6, cursor: 'col-resize', bgcolor: 'divider', flexShrink: 0, '&:hover': { bgcolor: 'primary.light' } }}
      />
      <Box sx={{ flex: '1 1 0px', minWidth: 0, display: 'flex', flexDirection: 'column', minHeight: 0 }}>
        {notice}
        {uuid ? <OpenTicket uuid={uuid} /> : <Placeholder />}
      </Box>
    </Paper>
  );
}
