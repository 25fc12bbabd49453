export { avatarKeys, avatarQuery, getAvatar, useAvatarBlob } from './get-avatar';
export { useObjectUrl } from './use-object-url';
export { useAvatarUrl } from './use-avatar-url';
export { AVATAR_ACCEPT, AVATAR_MAX_BYTES, AVATAR_TYPES, uploadAvatar, useUploadAvatar, validateAvatarFile } from './upload-avatar';
export type { AvatarFileProblem } from './upload-avatar';
export { initialsOf } from './initials';
