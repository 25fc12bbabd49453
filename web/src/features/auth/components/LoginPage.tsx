import { useEffect, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link as RouterLink, useNavigate } from 'react-router';
import {
  Alert,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  Link,
  Stack,
} from '@mui/material';
import { Controller } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Form, FormTextField } from '../../../components/ui';
import { formatDate } from '../../../lib/format';
import { usePublicSetting } from '../../../lib/public-settings';
import { beginSession, clearSignOutNotice, readSignOutNotice, type AuthResponse } from '../../../lib/session';
import { hasStoredThemeMode, setThemeMode } from '../../../lib/theme';
import { toast, toastError } from '../../../lib/toast';
import { loginInputSchema, useLogin, type LoginInput } from '../api/login';
import { loadRules } from '../../../lib/wasm/rules';
import { AuthLayout } from './AuthLayout';
import { PasswordStrengthBar } from './PasswordStrengthBar';

export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const allowSignup = usePublicSetting('allowSignup') === 'enabled';
  const loginMutation = useLogin();
  const [weakPending, setWeakPending] = useState<LoginInput | null>(null);
  const [showChangeHint, setShowChangeHint] = useState(false);
  // Why the last session ended (another sign-in, a session the server ended), said once.
  const [notice] = useState(readSignOutNotice);
  useEffect(() => clearSignOutNotice(), []);

  const form = useForm<LoginInput>({
    resolver: zodResolver(loginInputSchema),
    defaultValues: { email: '', password: '', remember: false },
  });
  const password = useWatch({ control: form.control, name: 'password' });

  const afterLogin = (response: AuthResponse, remember: boolean) => {
    beginSession(response, remember);
    if (!hasStoredThemeMode()) setThemeMode(response.user.defaultTheme);
    const { subscription } = response;
    if (subscription.status === 'expired') {
      toast.error(t('subscription.expiredToast', { date: formatDate(subscription.dueDate) }));
      navigate('/financeiro-aberto', { replace: true });
      return;
    }
    if (subscription.status === 'warning') {
      const count = subscription.daysLeft ?? 0;
      toast.warning(count === 1 ? t('subscription.warningOne', { count }) : t('subscription.warningMany', { count }));
    }
    navigate('/', { replace: true });
  };

  const signIn = (values: LoginInput) => {
    loginMutation.mutate(values, {
      onSuccess: (response) => afterLogin(response, values.remember),
      onError: (error) => toastError(error),
    });
  };

  const onSubmit = (values: LoginInput) => {
    setShowChangeHint(false);
    // The core decides the warning; its module is in by now (the meter loaded it), else we wait.
    loadRules().then(
      (rules) => {
        if (rules.passwordStrength(values.password).warn) setWeakPending(values);
        else signIn(values);
      },
      () => signIn(values),
    );
  };

  return (
    <AuthLayout title={t('login.title')} testId="login-page">
      <Form form={form} onSubmit={onSubmit} testId="login-form">
        <Stack spacing={2}>
          {notice && (
            <Alert severity="warning" data-testid="login-signed-out-notice">
              {notice === 'elsewhere' ? t('session.signedInElsewhere') : t('session.ended')}
            </Alert>
          )}
          <FormTextField name="email" label={t('login.email')} type="email" autoComplete="email" autoFocus required fullWidth testId="login-email" />
          <FormTextField
            name="password"
            label={t('login.password')}
            autoComplete="current-password"
            required
            fullWidth
            revealable
            testId="login-password"
            below={<PasswordStrengthBar password={password} />}
          />
          <Controller
            name="remember"
            control={form.control}
            render={({ field }) => (
              <FormControlLabel
                label={t('login.rememberMe')}
                control={
                  <Checkbox
                    checked={field.value}
                    onChange={(_, checked) => field.onChange(checked)}
                    slotProps={{ input: { 'data-testid': 'login-remember' } as object }}
                  />
                }
              />
            )}
          />
          {showChangeHint && (
            <Alert severity="info" data-testid="change-password-hint">
              {t('login.changePasswordHint')}
            </Alert>
          )}
          <Button type="submit" variant="contained" size="large" disabled={loginMutation.isPending} data-testid="login-submit">
            {t('login.submit')}
          </Button>
          <Stack direction="row" sx={{ justifyContent: 'space-between', flexWrap: 'wrap', gap: 1 }}>
            <Link component={RouterLink} to="/forgetpsw" variant="body2" data-testid="link-forgot-password">
              {t('login.forgotPassword')}
            </Link>
            {allowSignup && (
              <Link component={RouterLink} to="/signup" variant="body2" data-testid="link-signup">
                {t('login.signup')}
              </Link>
            )}
          </Stack>
        </Stack>
      </Form>

      <Dialog open={!!weakPending} onClose={() => setWeakPending(null)} data-testid="weak-password-dialog">
        <DialogTitle>{t('login.weakDialog.title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{t('login.weakDialog.text')}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button
            data-testid="weak-password-change"
            onClick={() => {
              setWeakPending(null);
              setShowChangeHint(true);
            }}
          >
            {t('login.weakDialog.change')}
          </Button>
          <Button
            variant="contained"
            data-testid="weak-password-proceed"
            onClick={() => {
              const values = weakPending;
              setWeakPending(null);
              if (values) signIn(values);
            }}
          >
            {t('login.weakDialog.proceed')}
          </Button>
        </DialogActions>
      </Dialog>
    </AuthLayout>
  );
}
