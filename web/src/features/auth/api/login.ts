/** `POST /auth/login` `{email, password}` → `{token, user, permissions, subscription}`. */
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api';
import { authResponseSchema, type AuthResponse } from '../../../lib/session';

export const loginInputSchema = z.object({
  email: z.string().trim().min(1, 'REQUIRED').email('INVALID_EMAIL'),
  password: z.string().min(1, 'REQUIRED'),
  remember: z.boolean(),
});
export type LoginInput = z.infer<typeof loginInputSchema>;

export function login({ email, password }: LoginInput): Promise<AuthResponse> {
  return api.post('/auth/login', { email: email.trim().toLowerCase(), password }, { schema: authResponseSchema });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
