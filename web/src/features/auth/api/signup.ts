/** `POST /auth/signup` `{companyName, name, email, password, phone, planId}` → 201 `{companyId}`. */
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { publicApi } from '../../../lib/api';

export const signupInputSchema = z.object({
  companyName: z.string().trim().min(2, 'TOO_SHORT').max(50, 'TOO_LONG'),
  name: z.string().trim().min(1, 'REQUIRED').min(2, 'TOO_SHORT').max(50, 'TOO_LONG'),
  email: z.string().trim().min(1, 'REQUIRED').email('INVALID_EMAIL'),
  password: z.string().min(1, 'REQUIRED').min(5, 'TOO_SHORT').max(50, 'TOO_LONG'),
  /** Masked "(99) 99999-9999" in the form; digits on the wire. */
  phone: z.string().refine((value) => {
    const digits = value.replace(/\D/g, '').length;
    return digits === 0 || digits >= 10;
  }, 'INVALID_FORMAT'),
  planId: z.union([z.number(), z.literal('')]).refine((value): value is number => value !== '', 'REQUIRED'),
});
export type SignupFormValues = z.input<typeof signupInputSchema>;
export type SignupInput = z.output<typeof signupInputSchema>;

export const signupResponseSchema = z.object({ companyId: z.number().nullish() }).nullish();

export function signup(input: SignupInput) {
  return publicApi.post(
    '/auth/signup',
    {
      companyName: input.companyName.trim(),
      name: input.name.trim(),
      email: input.email.trim().toLowerCase(),
      password: input.password,
      phone: input.phone.replace(/\D/g, ''),
      planId: input.planId,
    },
    { schema: signupResponseSchema },
  );
}

export function useSignup() {
  return useMutation({ mutationFn: signup });
}
