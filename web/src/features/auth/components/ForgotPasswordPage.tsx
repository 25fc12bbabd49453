import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link as RouterLink, useNavigate } from 'react-router';
import { Button, Link, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { usePublicSetting } from '../../../lib/public-settings';
import { toast, toastError } from '../../../lib/toast';
import {
  requestCodeSchema,
  resetPasswordSchema,
  useRequestResetCode,
  useResetPassword,
  type RequestCodeInput,
  type ResetPasswordInput,
} from '../api/forgot-password';
import { AuthLayout } from './AuthLayout';

/** Two steps (spec 3 §2.11): e-mail → request a code; then code, new password and confirmation. */
export default function ForgotPasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [email, setEmail] = useState<string | null>(null);
  const requestCode = useRequestResetCode();
  const reset = useResetPassword();
  const allowSignup = usePublicSetting('allowSignup') === 'enabled';

  const emailForm = useForm<RequestCodeInput>({ resolver: zodResolver(requestCodeSchema), defaultValues: { email: '' } });
  const resetForm = useForm<ResetPasswordInput>({
    resolver: zodResolver(resetPasswordSchema),
    defaultValues: { code: '', newPassword: '', confirmPassword: '' },
  });

  const onRequest = ({ email: value }: RequestCodeInput) => {
    requestCode.mutate(value, {
      onSuccess: () => {
        toast.success(t('forgotPassword.emailSent'));
        setEmail(value.trim().toLowerCase());
      },
      onError: (error) => {
        if (isApiError(error) && error.status === 404 && error.code !== 'ERR_NOT_FOUND') {
          toast.error(t('forgotPassword.emailNotFound'));
        } else {
          toastError(error);
        }
      },
    });
  };

  const onReset = (values: ResetPasswordInput) => {
    if (!email) return;
    reset.mutate(
      { email, input: values },
      {
        onSuccess: () => {
          toast.success(t('forgotPassword.resetSuccess'));
          navigate('/login');
        },
        onError: (error) => toastError(error),
      },
    );
  };

  return (
    <AuthLayout title={t('forgotPassword.title')} testId="forgot-password-page">
      {email === null ? (
        <Form form={emailForm} onSubmit={onRequest} testId="forgot-email-form">
          <Stack spacing={2}>
            <FormTextField name="email" label={t('forgotPassword.email')} type="email" required fullWidth autoFocus testId="forgot-email" />
            <Button type="submit" variant="contained" size="large" disabled={requestCode.isPending} data-testid="forgot-request-code">
              {t('forgotPassword.requestCode')}
            </Button>
            <Button
              variant="text"
              data-testid="forgot-have-code"
              onClick={emailForm.handleSubmit(({ email: value }) => setEmail(value.trim().toLowerCase()))}
            >
              {t('forgotPassword.haveCode')}
            </Button>
          </Stack>
        </Form>
      ) : (
        <Form form={resetForm} onSubmit={onReset} testId="forgot-reset-form">
          <Stack spacing={2}>
            <Typography variant="body2" color="text.secondary">
              {email}
            </Typography>
            <FormTextField name="code" label={t('forgotPassword.code')} required fullWidth autoFocus testId="forgot-code" />
            <FormTextField name="newPassword" label={t('forgotPassword.newPassword')} required fullWidth revealable autoComplete="new-password" testId="forgot-new-password" />
            <FormTextField
              name="confirmPassword"
              label={t('forgotPassword.confirmPassword')}
              required
              fullWidth
              revealable
              autoComplete="new-password"
              testId="forgot-confirm-password"
            />
            <Button type="submit" variant="contained" size="large" disabled={reset.isPending} data-testid="forgot-reset">
              {t('forgotPassword.reset')}
            </Button>
          </Stack>
        </Form>
      )}
      <Stack direction="row" sx={{ mt: 2, justifyContent: 'space-between', flexWrap: 'wrap', gap: 1 }}>
        <Link component={RouterLink} to="/login" variant="body2">
          {t('forgotPassword.backToLogin')}
        </Link>
        {allowSignup && (
          <Link component={RouterLink} to="/signup" variant="body2">
            {t('forgotPassword.signup')}
          </Link>
        )}
      </Stack>
    </AuthLayout>
  );
}
