import { z } from 'zod';

/** A quick message (core/src/quick_message.rs `QuickMessage`). */
export const quickMessageSchema = z
  .object({
    id: z.number(),
    shortcode: z.string(),
    message: z.string().nullish().transform((v) => v ?? ''),
    geral: z.boolean().catch(false),
    userId: z.number(),
    mediaPath: z.string().nullish(),
    mediaName: z.string().nullish(),
    isMedia: z.boolean().catch(false),
  })
  .loose();
export type QuickMessage = z.infer<typeof quickMessageSchema>;

/** Whether `userId` may edit `message`: a shared one, or their own (docs/quick-messages.md). */
export function canEditQuickMessage(message: Pick<QuickMessage, 'geral' | 'userId'>, userId: number): boolean {
  return message.geral || message.userId === userId;
}
