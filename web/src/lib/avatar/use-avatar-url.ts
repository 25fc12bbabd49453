import { useAvatarBlob } from './get-avatar';
import { useObjectUrl } from './use-object-url';

/**
 * A displayable URL of a user's avatar (an object URL of the image fetched with the token), or
 * undefined without `profileImage`, while loading or when the image cannot be fetched.
 */
export function useAvatarUrl(userId: number, profileImage: string | null | undefined): string | undefined {
  return useObjectUrl(useAvatarBlob(userId, profileImage));
}
