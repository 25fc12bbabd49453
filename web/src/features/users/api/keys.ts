/**
 * The users' query keys, a module of their own: the top bar's profile dialog refreshes the users
 * list with them without bringing the users' schemas into the inbox's first load.
 */
export const usersKeys = {
  all: ['users'] as const,
  lists: () => [...usersKeys.all, 'list'] as const,
  list: (search: string) => [...usersKeys.lists(), search] as const,
  detail: (id: number) => [...usersKeys.all, 'detail', id] as const,
};
