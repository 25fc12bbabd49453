import { useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { Box, Button, Paper, Tab, Tabs, Typography, useMediaQuery } from '@mui/material';
import ChatIcon from '@mui/icons-material/ChatOutlined';
import { useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAuthenticatedSession, sessionStore } from '../../../lib/session';
import { toastError } from '../../../lib/toast';
import { saveTicketsWidth } from '../api/tickets';
import { clampWidth, PANEL_DEFAULT } from '../format';
import { useInboxRealtime } from '../hooks/useInboxRealtime';
import { TicketsManager } from './TicketsManager';
import { TicketView } from './TicketView';

/** Spec 1 §9: below this width the page shows a tab view of the list and the ticket. */
export const MOBILE_QUERY = '(max-width:766.95px)';

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
      <Paper sx={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 0, height: 'calc(100vh - 112px)' }} data-testid="tickets-page" data-layout="mobile">
        <Tabs value={mobileTab} onChange={(_e, value: 'list' | 'ticket') => setMobileTab(value)} variant="fullWidth">
          <Tab value="ticket" label={t('tickets.mobile.ticket')} data-testid="tickets-mobile-ticket" />
          <Tab value="list" label={t('tickets.mobile.list')} data-testid="tickets-mobile-list" />
        </Tabs>
        {mobileTab === 'ticket' ? (
          uuid ? <TicketView uuid={uuid} /> : <Placeholder onSelect={() => setMobileTab('list')} />
        ) : (
          <TicketsManager selectedUuid={uuid} />
        )}
      </Paper>
    );
  }

  return (
    <Paper sx={{ display: 'flex', flex: 1, minHeight: 0, height: 'calc(100vh - 112px)', overflow: 'hidden' }} data-testid="tickets-page" data-layout="wide">
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
      <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', minHeight: 0 }}>
        {uuid ? <TicketView key={uuid} uuid={uuid} /> : <Placeholder />}
      </Box>
    </Paper>
  );
}
