/** `POST /auth/login` `{email, password}` → `{token, user, permissions, subscription}`. */
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { authResponseSchema, type AuthResponse } from '../../../lib/session';

export const loginInputSchema = z.object({
  email: z.string().check(z.trim(), z.minLength(1, 'REQUIRED'), z.email('INVALID_EMAIL')),
  password: z.string().check(z.minLength(1, 'REQUIRED')),
  remember: z.boolean(),
});
export type LoginInput = z.infer<typeof loginInputSchema>;

export function login({ email, password }: LoginInput): Promise<AuthResponse> {
  return api.post('/auth/login', { email: email.trim().toLowerCase(), password }, { schema: authResponseSchema });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
