import { z } from 'zod/mini';

/** A quick message (core/src/quick_message.rs `QuickMessage`). */
export const quickMessageSchema = z.looseObject({
  id: z.number(),
  shortcode: z.string(),
  message: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  geral: z.catch(z.boolean(), false),
  userId: z.number(),
  mediaPath: z.nullish(z.string()),
  mediaName: z.nullish(z.string()),
  isMedia: z.catch(z.boolean(), false),
});
export type QuickMessage = z.infer<typeof quickMessageSchema>;

/** Whether `userId` may edit `message`: a shared one, or their own (docs/quick-messages.md). */
export function canEditQuickMessage(message: Pick<QuickMessage, 'geral' | 'userId'>, userId: number): boolean {
  return message.geral || message.userId === userId;
}
