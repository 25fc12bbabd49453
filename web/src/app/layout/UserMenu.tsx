import { lazy, Suspense, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { IconButton, ListItemIcon, Menu, MenuItem } from '@mui/material';
import LogoutIcon from '@mui/icons-material/Logout';
import PersonIcon from '@mui/icons-material/Person';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { UserAvatar } from '../../components/UserAvatar';
import { usersKeys } from '../../features/users/api/keys';
import { logout, useAuthenticatedSession } from '../../lib/session';
import { Tooltip } from '../../components/Tooltip';

/** Opened from the menu: its chunk (the form, react-hook-form) is not in the first load. */
const ProfileDialog = lazy(() => import('../../features/profile/components/ProfileDialog').then((m) => ({ default: m.ProfileDialog })));

/** Avatar menu: Perfil (own account dialog) and Sair (`DELETE /auth/logout`, then /login). */
export function UserMenu() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user } = useAuthenticatedSession();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [profileOpen, setProfileOpen] = useState(false);
  const queryClient = useQueryClient();
  return (
    <>
      <Tooltip title={t('topBar.account')}>
        <IconButton onClick={(event) => setAnchor(event.currentTarget)} aria-label={t('topBar.account')} data-testid="user-menu-button" sx={{ ml: 0.5 }}>
          <UserAvatar user={user} size={32} testId="user-menu-avatar" />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)} anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} transformOrigin={{ vertical: 'top', horizontal: 'right' }}>
        <MenuItem
          data-testid="menu-profile"
          onClick={() => {
            setAnchor(null);
            setProfileOpen(true);
          }}
        >
          <ListItemIcon>
            <PersonIcon fontSize="small" />
          </ListItemIcon>
          {t('topBar.profile')}
        </MenuItem>
        <MenuItem
          data-testid="menu-logout"
          onClick={async () => {
            setAnchor(null);
            await logout();
            navigate('/login', { replace: true });
          }}
        >
          <ListItemIcon>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          {t('topBar.logout')}
        </MenuItem>
      </Menu>
      {profileOpen && (
        <Suspense fallback={null}>
          <ProfileDialog
            open={profileOpen}
            onClose={() => setProfileOpen(false)}
            // The users table shows this picture too.
            onAvatarChanged={() => void queryClient.invalidateQueries({ queryKey: usersKeys.lists() })}
          />
        </Suspense>
      )}
    </>
  );
}
