/**
 * `PUT /users/{id}` for the signed-in user's own account: name, e-mail, password, theme (docs/api.md
 * "Users": a plain user may update only these, the menu and the farewell message).
 */
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { userSchema, type User } from '../../../lib/session';

export const profileInputSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1, 'REQUIRED'), z.minLength(2, 'TOO_SHORT'), z.maxLength(50, 'TOO_LONG')),
  email: z.string().check(z.trim(), z.minLength(1, 'REQUIRED'), z.email('INVALID_EMAIL')),
  password: z.union([z.literal(''), z.string().check(z.minLength(5, 'TOO_SHORT'), z.maxLength(50, 'TOO_LONG'))]),
  defaultTheme: z.enum(['light', 'dark']),
});
export type ProfileInput = z.infer<typeof profileInputSchema>;

export function updateProfile(user: User, input: ProfileInput): Promise<User> {
  return api.put(
    `/users/${user.id}`,
    {
      name: input.name.trim(),
      email: input.email.trim().toLowerCase(),
      ...(input.password ? { password: input.password } : {}),
      defaultTheme: input.defaultTheme,
      defaultMenu: user.defaultMenu,
      farewellMessage: user.farewellMessage ?? '',
    },
    { schema: userSchema },
  );
}

export function useUpdateProfile() {
  return useMutation({ mutationFn: ({ user, input }: { user: User; input: ProfileInput }) => updateProfile(user, input) });
}
