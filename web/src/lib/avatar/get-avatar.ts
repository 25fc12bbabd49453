/**
 * `GET /users/{id}/avatar`: the image behind a user's `profileImage`. It needs the bearer token,
 * so it is fetched as a blob through the API client and cached per user and stored file name: a
 * new upload stores a new file name, hence a new cache entry.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../api';

export const avatarKeys = {
  all: ['avatar'] as const,
  image: (userId: number, profileImage: string) => [...avatarKeys.all, userId, profileImage] as const,
};

export function getAvatar(userId: number, signal?: AbortSignal): Promise<Blob> {
  return api.blob(`/users/${userId}/avatar`, { signal });
}

export const avatarQuery = (userId: number, profileImage: string) =>
  queryOptions({
    queryKey: avatarKeys.image(userId, profileImage),
    queryFn: ({ signal }) => getAvatar(userId, signal),
    // The file behind a stored name never changes.
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });

/** The avatar image of a user, or nothing while loading, on failure or without `profileImage`. */
export function useAvatarBlob(userId: number, profileImage: string | null | undefined): Blob | undefined {
  const query = useQuery({ ...avatarQuery(userId, profileImage ?? ''), enabled: !!profileImage });
  return profileImage ? query.data : undefined;
}
