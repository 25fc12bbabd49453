import { Avatar, type SxProps, type Theme } from '@mui/material';
import { blueGrey, cyan, deepOrange, deepPurple, green, indigo, pink, teal } from '@mui/material/colors';
import { useTranslation } from 'react-i18next';
// Not through lib/avatar's index: the shell shows avatars, the upload code stays with the dialogs.
import { initialsOf } from '../lib/avatar/initials';
import { useAvatarUrl } from '../lib/avatar/use-avatar-url';

export interface AvatarUser {
  id: number;
  name: string;
  profileImage?: string | null;
}

const COLOURS = [indigo[500], teal[600], deepPurple[400], pink[500], deepOrange[600], cyan[700], green[700], blueGrey[500]];

interface UserAvatarProps {
  user: AvatarUser;
  /** Diameter in pixels. */
  size?: number;
  sx?: SxProps<Theme>;
  testId?: string;
}

/**
 * A user's picture (`GET /users/{id}/avatar`, fetched with the token) or, without one, their
 * initials on a colour that stays the same for the same user.
 */
export function UserAvatar({ user, size = 32, sx, testId }: UserAvatarProps) {
  const { t } = useTranslation();
  const src = useAvatarUrl(user.id, user.profileImage);
  return (
    <Avatar
      src={src}
      alt={t('avatar.alt', { name: user.name })}
      data-testid={testId}
      data-has-image={src ? 'true' : 'false'}
      sx={[
        { width: size, height: size, fontSize: Math.round(size * 0.42), fontWeight: 600, bgcolor: COLOURS[Math.abs(user.id) % COLOURS.length], color: '#fff' },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    >
      {initialsOf(user.name)}
    </Avatar>
  );
}
