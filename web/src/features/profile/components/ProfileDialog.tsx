import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { AvatarUploadField } from '../../../components/AvatarUploadField';
import { useTranslation } from 'react-i18next';
import { Form, FormSelectField, FormTextField } from '../../../components/ui';
import { applyServerFieldErrors } from '../../../lib/forms';
import { sessionStore, useAuthenticatedSession, type User } from '../../../lib/session';
import { setThemeMode } from '../../../lib/theme';
import { toast, toastError } from '../../../lib/toast';
import { profileInputSchema, useUpdateProfile, type ProfileInput } from '../api/update-profile';

const FIELDS = ['name', 'email', 'password', 'defaultTheme'] as const;

interface ProfileDialogProps {
  open: boolean;
  onClose: () => void;
  /** After a new picture was uploaded (the session already shows it). */
  onAvatarChanged?: (user: User) => void;
}

/** The signed-in user edits their own picture, name, e-mail, password and preferred theme. */
export function ProfileDialog({ open, onClose, onAvatarChanged }: ProfileDialogProps) {
  const { t } = useTranslation();
  const { user } = useAuthenticatedSession();
  const mutation = useUpdateProfile();
  const form = useForm<ProfileInput>({
    resolver: zodResolver(profileInputSchema),
    values: { name: user.name, email: user.email, password: '', defaultTheme: user.defaultTheme },
  });

  const onSubmit = (input: ProfileInput) => {
    mutation.mutate(
      { user, input },
      {
        onSuccess: (updated) => {
          sessionStore.update({ user: { ...user, ...updated, company: updated.company ?? user.company } });
          setThemeMode(input.defaultTheme);
          toast.success(t('profile.saved'));
          onClose();
        },
        onError: (error) => {
          if (!applyServerFieldErrors(error, form.setError, FIELDS)) toastError(error);
        },
      },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs" data-testid="profile-dialog">
      <DialogTitle>{t('profile.title')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} inDialog>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <AvatarUploadField user={user} onUploaded={onAvatarChanged} testId="profile-avatar" />
            <FormTextField name="name" label={t('profile.name')} required fullWidth testId="profile-name" />
            <FormTextField name="email" label={t('profile.email')} type="email" required fullWidth testId="profile-email" />
            <FormTextField
              name="password"
              label={t('profile.password')}
              helperText={t('profile.passwordHint')}
              fullWidth
              revealable
              autoComplete="new-password"
              testId="profile-password"
            />
            <FormSelectField
              name="defaultTheme"
              label={t('profile.theme')}
              fullWidth
              testId="profile-theme"
              options={[
                { value: 'light', label: t('theme.light') },
                { value: 'dark', label: t('theme.dark') },
              ]}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="profile-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={mutation.isPending} data-testid="profile-save">
            {t('common.save')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
