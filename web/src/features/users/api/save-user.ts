/**
 * `POST /users` and `PUT /users/{id}` with the body of docs/api.md "Users". Callers without
 * `user-modal:editProfile` send only what a plain user may change.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api';
import { userRecordSchema, type UserRecord } from '../types';
import { usersKeys } from './get-users';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const toggle = z.enum(['enabled', 'disabled']);

const userFormBase = z.object({
  name: z.string().trim().min(1, 'REQUIRED').min(2, 'TOO_SHORT').max(50, 'TOO_LONG'),
  email: z.string().trim().min(1, 'REQUIRED').email('INVALID_EMAIL'),
  password: z.string(),
  profile: z.enum(['admin', 'user']),
  queueIds: z.array(z.number()),
  startWork: z.string().regex(TIME, 'INVALID_FORMAT'),
  endWork: z.string().regex(TIME, 'INVALID_FORMAT'),
  farewellMessage: z.string(),
  allTicket: z.enum(['enable', 'disable']),
  allowGroup: z.boolean(),
  allHistoric: toggle,
  allUserChat: toggle,
  userClosePendingTicket: toggle,
  showDashboard: toggle,
  allowRealTime: toggle,
  allowConnections: toggle,
  defaultTheme: z.enum(['light', 'dark']),
  defaultMenu: z.enum(['open', 'closed']),
});
export type UserFormValues = z.infer<typeof userFormBase>;

/** Password 5 to 50: required when creating, optional when editing (spec 1 §5). */
export function userFormSchema(mode: 'create' | 'edit') {
  return userFormBase.superRefine((value, ctx) => {
    const { password } = value;
    if (!password) {
      if (mode === 'create') ctx.addIssue({ code: 'custom', path: ['password'], message: 'REQUIRED' });
      return;
    }
    if (password.length < 5) ctx.addIssue({ code: 'custom', path: ['password'], message: 'TOO_SHORT' });
    if (password.length > 50) ctx.addIssue({ code: 'custom', path: ['password'], message: 'TOO_LONG' });
  });
}

export const USER_FORM_FIELDS = Object.keys(userFormBase.shape) as (keyof UserFormValues)[];

export const emptyUserForm: UserFormValues = {
  name: '',
  email: '',
  password: '',
  profile: 'user',
  queueIds: [],
  startWork: '00:00',
  endWork: '23:59',
  farewellMessage: '',
  allTicket: 'disable',
  allowGroup: false,
  allHistoric: 'disabled',
  allUserChat: 'disabled',
  userClosePendingTicket: 'disabled',
  showDashboard: 'disabled',
  allowRealTime: 'disabled',
  allowConnections: 'disabled',
  defaultTheme: 'light',
  defaultMenu: 'open',
};

export function userBody(values: UserFormValues, options: { canEditProfile: boolean; whatsappId?: number | null }) {
  const common = {
    name: values.name.trim(),
    email: values.email.trim().toLowerCase(),
    ...(values.password ? { password: values.password } : {}),
    farewellMessage: values.farewellMessage,
    defaultTheme: values.defaultTheme,
    defaultMenu: values.defaultMenu,
  };
  if (!options.canEditProfile) return common;
  return {
    ...common,
    profile: values.profile,
    queueIds: values.queueIds,
    whatsappId: options.whatsappId ?? null,
    startWork: values.startWork,
    endWork: values.endWork,
    allTicket: values.allTicket,
    allowGroup: values.allowGroup,
    allHistoric: values.allHistoric,
    allUserChat: values.allUserChat,
    userClosePendingTicket: values.userClosePendingTicket,
    showDashboard: values.showDashboard,
    allowRealTime: values.allowRealTime,
    allowConnections: values.allowConnections,
  };
}

export function createUser(body: ReturnType<typeof userBody>): Promise<UserRecord> {
  return api.post('/users', body, { schema: userRecordSchema });
}

export function updateUser(id: number, body: ReturnType<typeof userBody>): Promise<UserRecord> {
  return api.put(`/users/${id}`, body, { schema: userRecordSchema });
}

export function useSaveUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | null; body: ReturnType<typeof userBody> }) =>
      id === null ? createUser(body) : updateUser(id, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKeys.all }),
  });
}
