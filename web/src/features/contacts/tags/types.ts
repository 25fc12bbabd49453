import { z } from 'zod';

/** A tag `{id, name, color, kanban}` (core/src/inbox/model.rs `Tag`). */
export const tagSchema = z
  .object({
    id: z.number(),
    name: z.string(),
    color: z.string().nullish().transform((v) => v || '#5C59A0'),
    kanban: z
      .union([z.number(), z.boolean()])
      .nullish()
      .transform((v) => (v ? 1 : 0)),
  })
  .loose();
export type Tag = z.infer<typeof tagSchema>;
