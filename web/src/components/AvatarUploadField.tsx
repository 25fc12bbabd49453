import { useId, useRef, useState, type ChangeEvent } from 'react';
import { Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import PhotoCameraIcon from '@mui/icons-material/PhotoCameraOutlined';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../lib/api';
import { AVATAR_ACCEPT, useUploadAvatar, validateAvatarFile } from '../lib/avatar';
import { translateError } from '../lib/i18n/errors';
import type { User } from '../lib/session';
import { toast } from '../lib/toast';
import { UserAvatar, type AvatarUser } from './UserAvatar';

interface AvatarUploadFieldProps {
  user: AvatarUser;
  /** Called with the updated user the server answered. */
  onUploaded?: (user: User) => void;
  disabled?: boolean;
  /** Prefix of the test ids: `-input`, `-button`, `-error`, `-avatar`. */
  testId: string;
}

/**
 * The user's picture with a "Change photo" button: the chosen file is checked in the browser
 * (PNG, JPEG, GIF or WebP, at most 2 MB) and then uploaded (`POST /users/{id}/media-upload`).
 */
export function AvatarUploadField({ user, onUploaded, disabled, testId }: AvatarUploadFieldProps) {
  const { t } = useTranslation();
  const upload = useUploadAvatar();
  const input = useRef<HTMLInputElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const errorId = useId();

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Let the same file be picked again after a failure.
    event.target.value = '';
    if (!file) return;
    const invalid = validateAvatarFile(file);
    if (invalid) {
      setProblem(t(invalid));
      return;
    }
    setProblem(null);
    upload.mutate(
      { userId: user.id, file },
      {
        onSuccess: (updated) => {
          toast.success(t('avatar.uploaded'));
          onUploaded?.(updated);
        },
        onError: (error) => {
          const wrongImage = isApiError(error) && error.fields.some((field) => field.field === 'profileImage' && field.code !== 'REQUIRED');
          setProblem(wrongImage ? t('avatar.invalidType') : translateError(error, t));
        },
      },
    );
  };

  return (
    <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }} data-testid={testId}>
      <Box sx={{ position: 'relative', flexShrink: 0 }}>
        <UserAvatar user={user} size={64} testId={`${testId}-avatar`} />
        {upload.isPending && (
          <CircularProgress size={72} thickness={2.5} sx={{ position: 'absolute', top: -4, left: -4 }} aria-label={t('avatar.uploading')} />
        )}
      </Box>
      <Stack spacing={0.5} sx={{ minWidth: 0, alignItems: 'flex-start' }}>
        <Button
          variant="outlined"
          size="small"
          startIcon={<PhotoCameraIcon />}
          disabled={disabled || upload.isPending}
          onClick={() => input.current?.click()}
          data-testid={`${testId}-button`}
        >
          {upload.isPending ? t('avatar.uploading') : t('avatar.change')}
        </Button>
        <input
          ref={input}
          type="file"
          accept={AVATAR_ACCEPT}
          hidden
          onChange={onChange}
          aria-describedby={errorId}
          data-testid={`${testId}-input`}
        />
        {problem ? (
          <Typography id={errorId} variant="caption" color="error" role="alert" data-testid={`${testId}-error`}>
            {problem}
          </Typography>
        ) : (
          <Typography id={errorId} variant="caption" color="text.secondary">
            {t('avatar.hint')}
          </Typography>
        )}
      </Stack>
    </Stack>
  );
}
