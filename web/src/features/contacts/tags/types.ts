import { z } from 'zod/mini';

/** A tag `{id, name, color, kanban}` (core/src/inbox/model.rs `Tag`). */
export const tagSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  color: z.pipe(z.nullish(z.string()), z.transform((v) => v || '#5C59A0')),
  kanban: z.pipe(z.nullish(z.union([z.number(), z.boolean()])), z.transform((v) => (v ? 1 : 0))),
});
export type Tag = z.infer<typeof tagSchema>;
