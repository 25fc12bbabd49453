import { Fragment } from 'react';
import { NavLink } from 'react-router';
import { Box, Divider, List, ListItemButton, ListItemIcon, ListItemText, ListSubheader, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useAuthenticatedSession } from '../../lib/session';
import { visibleMenuEntries, type MenuEntry } from '../routes';
import { ConnectionsMenuBadge } from '../../features/connections/components/ConnectionsMenuBadge';
import { Tooltip } from '../../components/Tooltip';

export const APP_VERSION = '3.5.0';

/** The side menu: built entries the user has capabilities for, grouped; the version when open. */
export function SideMenu({ collapsed, onNavigate }: { collapsed: boolean; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { permissions } = useAuthenticatedSession();
  const entries = visibleMenuEntries(permissions);

  const groups: { group: MenuEntry['group']; entries: MenuEntry[] }[] = [];
  for (const entry of entries) {
    const last = groups[groups.length - 1];
    if (last && last.group === entry.group) last.entries.push(entry);
    else groups.push({ group: entry.group, entries: [entry] });
  }

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%' }} data-testid="side-menu">
      <List sx={{ flex: 1, overflowY: 'auto', overflowX: 'hidden' }} dense>
        {groups.map(({ group, entries: items }, index) => (
          <Fragment key={group}>
            {index > 0 && <Divider sx={{ my: 1 }} />}
            {!collapsed && <ListSubheader sx={{ bgcolor: 'transparent', lineHeight: '32px' }}>{t(`menu.groups.${group}`)}</ListSubheader>}
            {items.map((entry) => {
              const Icon = entry.icon;
              const icon = Icon && <Icon />;
              const label = t(`menu.${entry.label}`);
              return (
                <Tooltip key={entry.id} title={collapsed ? label : ''} placement="right">
                  <ListItemButton
                    component={NavLink}
                    to={entry.path}
                    end={entry.path === '/'}
                    onClick={onNavigate}
                    data-testid={`menu-${entry.id}`}
                    sx={{ '&.active': { bgcolor: 'action.selected', color: 'primary.main', '& .MuiListItemIcon-root': { color: 'primary.main' } } }}
                  >
                    <ListItemIcon sx={{ minWidth: 40 }}>
                      {entry.id === 'connections' ? (
                        <ConnectionsMenuBadge>{icon}</ConnectionsMenuBadge>
                      ) : (
                        icon
                      )}
                    </ListItemIcon>
                    {!collapsed && <ListItemText primary={label} />}
                  </ListItemButton>
                </Tooltip>
              );
            })}
          </Fragment>
        ))}
      </List>
      {!collapsed && (
        <Typography variant="caption" color="text.secondary" sx={{ p: 2, textAlign: 'center' }} data-testid="app-version">
          {t('menu.version', { version: APP_VERSION })}
        </Typography>
      )}
    </Box>
  );
}
