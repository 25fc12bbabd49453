import { z } from 'zod';
import { tagSchema } from './tags/types';

export const extraInfoSchema = z.object({ id: z.number().nullish(), name: z.string(), value: z.string() });

/** A contact (core/src/inbox/model.rs `Contact`). */
export const contactSchema = z
  .object({
    id: z.number(),
    name: z.string(),
    number: z.string().nullish().transform((v) => v ?? ''),
    email: z.string().nullish().transform((v) => v ?? ''),
    active: z.boolean().nullish().transform((v) => v !== false),
    disableBot: z.boolean().nullish(),
    acceptAudioMessage: z.boolean().nullish(),
    urlPicture: z.string().nullish(),
    profilePicUrl: z.string().nullish(),
    channel: z.string().nullish().transform((v) => v ?? 'whatsapp'),
    isGroup: z.boolean().nullish().transform((v) => !!v),
    whatsappId: z.number().nullish(),
    whatsappName: z.string().nullish(),
    whatsapp: z.object({ id: z.number(), name: z.string() }).loose().nullish(),
    extraInfo: z.array(extraInfoSchema).nullish().transform((v) => v ?? []),
    tags: z.array(tagSchema).nullish().transform((v) => v ?? []),
  })
  .loose();
export type Contact = z.infer<typeof contactSchema>;

/** The connection name shown in the table. */
export function connectionNameOf(contact: Contact): string {
  return contact.whatsappName ?? contact.whatsapp?.name ?? '';
}
