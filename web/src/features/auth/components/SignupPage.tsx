import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link as RouterLink, useNavigate } from 'react-router';
import { Button, Link, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormSelectField, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { formatBRL } from '../../../lib/format';
import { applyServerFieldErrors } from '../../../lib/forms';
import { isKnownErrorCode } from '../../../lib/i18n/errors';
import { toast, toastError } from '../../../lib/toast';
import { usePublicPlans } from '../api/plans';
import { signupInputSchema, useSignup, type SignupFormValues, type SignupInput } from '../api/signup';
import { maskPhone } from '../utils/phone';
import { AuthLayout } from './AuthLayout';

const FIELDS = ['companyName', 'name', 'email', 'password', 'phone', 'planId'] as const;

export default function SignupPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const plans = usePublicPlans();
  const signupMutation = useSignup();
  const form = useForm<SignupFormValues, unknown, SignupInput>({
    resolver: zodResolver(signupInputSchema),
    defaultValues: { companyName: '', name: '', email: '', password: '', phone: '', planId: '' },
  });

  const planOptions = (plans.data ?? []).map((plan) => ({
    value: plan.id,
    label: t('signup.planOption', {
      name: plan.name,
      users: plan.users ?? 0,
      connections: plan.connections ?? 0,
      queues: plan.queues ?? 0,
      amount: formatBRL(plan.amount),
    }),
  }));

  const onSubmit = (values: SignupInput) => {
    signupMutation.mutate(values, {
      onSuccess: () => {
        toast.success(t('signup.success'));
        navigate('/login');
      },
      onError: (error) => {
        applyServerFieldErrors(error, form.setError, FIELDS);
        if (isApiError(error) && (isKnownErrorCode(error.code) || error.message)) toastError(error);
        else toast.error(t('signup.failure'));
      },
    });
  };

  return (
    <AuthLayout title={t('signup.title')} testId="signup-page">
      <Form form={form} onSubmit={onSubmit} testId="signup-form">
        <Stack spacing={2}>
          <FormTextField name="companyName" label={t('signup.companyName')} required fullWidth autoFocus testId="signup-company" />
          <FormTextField name="name" label={t('signup.name')} required fullWidth autoComplete="name" testId="signup-name" />
          <FormTextField name="email" label={t('signup.email')} type="email" required fullWidth autoComplete="email" testId="signup-email" />
          <FormTextField name="password" label={t('signup.password')} required fullWidth revealable autoComplete="new-password" testId="signup-password" />
          <FormTextField
            name="phone"
            label={t('signup.phone')}
            fullWidth
            format={maskPhone}
            placeholder="(99) 99999-9999"
            autoComplete="tel"
            testId="signup-phone"
          />
          <FormSelectField
            name="planId"
            label={t('signup.plan')}
            required
            fullWidth
            options={planOptions}
            helperText={plans.isSuccess && planOptions.length === 0 ? t('signup.noPlans') : undefined}
            testId="signup-plan"
          />
          <Button type="submit" variant="contained" size="large" disabled={signupMutation.isPending} data-testid="signup-submit">
            {t('signup.submit')}
          </Button>
          <Link component={RouterLink} to="/login" variant="body2" data-testid="link-login">
            {t('signup.login')}
          </Link>
        </Stack>
      </Form>
    </AuthLayout>
  );
}
