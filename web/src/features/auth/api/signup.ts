/** `POST /auth/signup` `{companyName, name, email, password, phone, planId}` → 201 `{companyId}`. */
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { publicApi } from '../../../lib/api';
import { checkedByCore } from '../../../lib/wasm/forms';

/** The signup form (spec 2 §5); every field rule is the core's (`checkForm` "signup"). */
export const signupInputSchema = checkedByCore(
  z.object({
    companyName: z.string(),
    name: z.string(),
    email: z.string(),
    password: z.string(),
    /** Masked "(99) 99999-9999" in the form; digits on the wire. */
    phone: z.string(),
    planId: z.union([z.number(), z.literal('')]),
  }),
  (v) => ({ form: 'signup', ...v, planId: v.planId === '' ? null : v.planId }),
);
export type SignupFormValues = z.input<typeof signupInputSchema>;
export type SignupInput = z.output<typeof signupInputSchema>;

export const signupResponseSchema = z.nullish(z.object({ companyId: z.nullish(z.number()) }));

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
