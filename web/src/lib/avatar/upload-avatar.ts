/**
 * `POST /users/{id}/media-upload`, multipart field `profileImage`: a PNG, JPEG, GIF or WebP image
 * of at most 2 MiB (docs/api.md "Users"); the server answers the updated user. The browser checks
 * type and size first; the server checks the content again (422 ERR_VALIDATION, 413
 * ERR_PAYLOAD_TOO_LARGE).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api';
import { mimeTypeOf } from '../files';
import { sessionStore, userSchema, type User } from '../session';
import { avatarKeys } from './get-avatar';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** For `<input type="file" accept>`. */
export const AVATAR_ACCEPT = AVATAR_TYPES.join(',');

/** Translation keys of the browser-side checks. */
export type AvatarFileProblem = 'avatar.invalidType' | 'avatar.tooLarge';

/** The accepted type of `file`: its declared type, or from its extension when none is declared. */
function avatarTypeOf(file: File): string | undefined {
  const type = mimeTypeOf(file);
  return type && (AVATAR_TYPES as readonly string[]).includes(type) ? type : undefined;
}

/** Null when `file` may be uploaded, else the translation key of the problem. */
export function validateAvatarFile(file: File): AvatarFileProblem | null {
  if (!avatarTypeOf(file)) return 'avatar.invalidType';
  if (file.size > AVATAR_MAX_BYTES) return 'avatar.tooLarge';
  return null;
}

export function uploadAvatar(userId: number, file: File): Promise<User> {
  const body = new FormData();
  body.append('profileImage', file, file.name);
  return api.post(`/users/${userId}/media-upload`, body, { schema: userSchema });
}

/**
 * Uploads an avatar. The signed-in user's own record in the session follows at once, so the top
 * bar shows the new picture; callers refresh their own lists.
 */
export function useUploadAvatar() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, file }: { userId: number; file: File }) => uploadAvatar(userId, file),
    onSuccess: (updated, { file }) => {
      // The server stored exactly these bytes: show them without fetching them back.
      if (updated.profileImage) queryClient.setQueryData(avatarKeys.image(updated.id, updated.profileImage), file);
      const session = sessionStore.get();
      if (session.status === 'authenticated' && session.user.id === updated.id) {
        sessionStore.update({ user: { ...session.user, ...updated, company: updated.company ?? session.user.company } });
      }
    },
  });
}
