/** `GET /users/{id}`. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api';
import { userRecordSchema, type UserRecord } from '../types';
import { usersKeys } from './get-users';

export function getUser(id: number): Promise<UserRecord> {
  return api.get(`/users/${id}`, { schema: userRecordSchema });
}

export const userQuery = (id: number) => queryOptions({ queryKey: usersKeys.detail(id), queryFn: () => getUser(id) });

export function useUser(id: number | null) {
  return useQuery({ ...userQuery(id ?? 0), enabled: id !== null });
}
