import { Suspense, useState } from 'react';
import { Outlet } from 'react-router';
import { AppBar, Box, Drawer, IconButton, Toolbar, Typography, useMediaQuery, useTheme } from '@mui/material';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import MenuIcon from '@mui/icons-material/Menu';
import RefreshIcon from '@mui/icons-material/Refresh';
import { useTranslation } from 'react-i18next';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { ThemeToggle } from '../../components/ThemeToggle';
import { PageLoader } from '../../components/ui/PageLoader';
import { useAuthenticatedSession } from '../../lib/session';
import { useAppName } from '../../lib/theme';
import { TicketNotifications } from '../../features/tickets/components/TicketNotifications';
import { SideMenu } from './SideMenu';
import { UserMenu } from './UserMenu';
import { VolumeControl } from './VolumeControl';
import { Tooltip } from '../../components/Tooltip';

const DRAWER_WIDTH = 260;
const COLLAPSED_WIDTH = 64;

/** Side drawer (permanent from 600 px, temporary below), top bar and the page. */
export default function AppShell() {
  const { t } = useTranslation();
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('sm'), { noSsr: true });
  const { user, permissions } = useAuthenticatedSession();
  const canSeeTickets = permissions.includes('menu:tickets');
  const appName = useAppName();
  const [open, setOpen] = useState(user.defaultMenu !== 'closed');
  const [mobileOpen, setMobileOpen] = useState(false);

  const width = open ? DRAWER_WIDTH : COLLAPSED_WIDTH;
  const company = user.company?.name;

  const toolbarHeader = (
    <Toolbar sx={{ justifyContent: 'space-between', px: 2 }}>
      <Typography variant="h6" color="primary" noWrap sx={{ fontWeight: 700 }}>
        {appName}
      </Typography>
      <IconButton onClick={() => (wide ? setOpen(false) : setMobileOpen(false))} aria-label={t('topBar.closeMenu')} data-testid="drawer-close">
        <ChevronLeftIcon />
      </IconButton>
    </Toolbar>
  );

  return (
    // At least the visible window (dvh: without a phone's browser bars), so a page that fills it
    // (flex: 1 1 0px, such as the inbox) gets exactly the room below the top bar.
    <Box sx={{ display: 'flex', minHeight: '100dvh', bgcolor: 'background.default' }} data-testid="app-shell">
      <AppBar
        position="fixed"
        sx={{
          // Above the permanent drawer; below the temporary one, which covers it on phones.
          ...(wide ? { zIndex: (th) => th.zIndex.drawer + 1 } : {}),
          ...(wide && open ? { ml: `${DRAWER_WIDTH}px`, width: `calc(100% - ${DRAWER_WIDTH}px)` } : {}),
        }}
      >
        <Toolbar>
          {(!wide || !open) && (
            <IconButton
              color="inherit"
              edge="start"
              onClick={() => (wide ? setOpen(true) : setMobileOpen(true))}
              aria-label={t('topBar.openMenu')}
              data-testid="drawer-open"
              sx={{ mr: 2 }}
            >
              <MenuIcon />
            </IconButton>
          )}
          <Typography variant="subtitle1" noWrap sx={{ flex: 1 }} data-testid="topbar-greeting">
            {company ? t('topBar.greeting', { name: user.name, company }) : t('topBar.greetingNoCompany', { name: user.name })}
          </Typography>
          <ThemeToggle />
          <VolumeControl />
          <Tooltip title={t('topBar.refresh')}>
            <IconButton
              color="inherit"
              onClick={() => window.location.reload()}
              aria-label={t('topBar.refresh')}
              data-testid="refresh-button"
              // Phones reload by pulling down; the greeting needs the room.
              sx={{ display: { xs: 'none', sm: 'inline-flex' } }}
            >
              <RefreshIcon />
            </IconButton>
          </Tooltip>
          {canSeeTickets && <TicketNotifications />}
          <LanguageSwitcher />
          <UserMenu />
        </Toolbar>
      </AppBar>

      {wide ? (
        <Drawer
          variant="permanent"
          open={open}
          data-testid="drawer"
          data-collapsed={open ? 'false' : 'true'}
          sx={{
            width,
            flexShrink: 0,
            whiteSpace: 'nowrap',
            '& .MuiDrawer-paper': {
              width,
              boxSizing: 'border-box',
              overflowX: 'hidden',
              transition: theme.transitions.create('width', { duration: theme.transitions.duration.shorter }),
            },
          }}
        >
          {open ? toolbarHeader : <Toolbar />}
          <SideMenu collapsed={!open} />
        </Drawer>
      ) : (
        <Drawer
          variant="temporary"
          open={mobileOpen}
          onClose={() => setMobileOpen(false)}
          ModalProps={{ keepMounted: true }}
          data-testid="drawer"
          sx={{ '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box' } }}
        >
          {toolbarHeader}
          <SideMenu collapsed={false} onNavigate={() => setMobileOpen(false)} />
        </Drawer>
      )}

      <Box component="main" sx={{ flex: 1, minWidth: 0, p: { xs: 2, sm: 3 }, display: 'flex', flexDirection: 'column' }}>
        <Toolbar />
        <Suspense fallback={<PageLoader />}>
          <Outlet />
        </Suspense>
      </Box>
    </Box>
  );
}
