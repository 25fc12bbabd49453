/**
 * `POST /users` and `PUT /users/{id}` with the body of docs/api.md "Users". Callers without
 * `user-modal:editProfile` send only what a plain user may change.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { checkedByCore } from '../../../lib/wasm/forms';
import { userRecordSchema, type UserRecord } from '../types';
import { usersKeys } from './get-users';

const toggle = z.enum(['enabled', 'disabled']);

const userFormBase = z.object({
  name: z.string(),
  email: z.string(),
  password: z.string(),
  profile: z.enum(['admin', 'user']),
  queueIds: z.array(z.number()),
  startWork: z.string(),
  endWork: z.string(),
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

/** The user form: name, e-mail, password (required when creating, kept when left empty on an
 * edit) and work hours by the core's rules (spec 1 §5). */
export function userFormSchema(mode: 'create' | 'edit') {
  return checkedByCore(userFormBase, (v) => ({
    form: 'user',
    create: mode === 'create',
    name: v.name,
    email: v.email,
    password: v.password,
    startWork: v.startWork,
    endWork: v.endWork,
  }));
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
