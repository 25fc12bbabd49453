/**
 * Password reset (spec 3 §2.11, §7): `POST /forgetpassword/{email}` then
 * `POST /resetpasswords/{email}/{token}/{newPassword}`.
 */
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { publicApi } from '../../../lib/api';
import { checkedByCore } from '../../../lib/wasm/forms';

export const requestCodeSchema = z.object({
  email: z.string().check(z.trim(), z.minLength(1, 'REQUIRED'), z.email('INVALID_EMAIL')),
});
export type RequestCodeInput = z.infer<typeof requestCodeSchema>;

/** The new password by the core's rule (`validate_new_password`), the same the server applies. */
export const resetPasswordSchema = checkedByCore(
  z.object({
    code: z.string().check(z.trim(), z.minLength(1, 'REQUIRED')),
    newPassword: z.string(),
    confirmPassword: z.string().check(z.minLength(1, 'REQUIRED')),
  }),
  (v) => ({ form: 'newPassword', newPassword: v.newPassword }),
  { newPassword: { INVALID_FORMAT: 'forgotPassword.passwordRule' } },
).check(
  z.refine((value) => value.newPassword === value.confirmPassword, {
    path: ['confirmPassword'],
    message: 'forgotPassword.mismatch',
  }),
);
export type ResetPasswordInput = z.infer<typeof resetPasswordSchema>;

export function requestResetCode(email: string) {
  return publicApi.post(`/forgetpassword/${encodeURIComponent(email.trim().toLowerCase())}`);
}

export function resetPassword(email: string, input: ResetPasswordInput) {
  const parts = [email.trim().toLowerCase(), input.code.trim(), input.newPassword].map(encodeURIComponent);
  return publicApi.post(`/resetpasswords/${parts.join('/')}`);
}

export function useRequestResetCode() {
  return useMutation({ mutationFn: requestResetCode });
}

export function useResetPassword() {
  return useMutation({ mutationFn: ({ email, input }: { email: string; input: ResetPasswordInput }) => resetPassword(email, input) });
}
