/**
 * How records name a tag or a queue (core/src/inbox/model.rs): schemas only, so the inbox's wire
 * types (features/tickets/types.ts) use them without the option lists' queries.
 */
import { z } from 'zod/mini';

/** A tag as the inbox shows it on tickets and contacts (core/src/inbox/model.rs `Tag`). */
export const tagSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.catch(z.string(), '#9e9e9e'),
  kanban: z.nullish(z.number()),
});
export type Tag = z.infer<typeof tagSchema>;

/** A queue as other records name it: `{id, name, color}`. */
export const queueRefSchema = z.object({ id: z.number(), name: z.string(), color: z.nullish(z.string()) });
export type QueueRef = z.infer<typeof queueRefSchema>;
