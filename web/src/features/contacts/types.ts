import { z } from 'zod/mini';
import { tagSchema } from './tags/types';

export const extraInfoSchema = z.object({ id: z.nullish(z.number()), name: z.string(), value: z.string() });

/** A contact (core/src/inbox/model.rs `Contact`). */
export const contactSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  number: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  email: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  active: z.pipe(z.nullish(z.boolean()), z.transform((v) => v !== false)),
  disableBot: z.nullish(z.boolean()),
  acceptAudioMessage: z.nullish(z.boolean()),
  urlPicture: z.nullish(z.string()),
  profilePicUrl: z.nullish(z.string()),
  channel: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? 'whatsapp')),
  isGroup: z.pipe(z.nullish(z.boolean()), z.transform((v) => !!v)),
  whatsappId: z.nullish(z.number()),
  whatsappName: z.nullish(z.string()),
  whatsapp: z.nullish(z.looseObject({ id: z.number(), name: z.string() })),
  extraInfo: z.pipe(z.nullish(z.array(extraInfoSchema)), z.transform((v) => v ?? [])),
  tags: z.pipe(z.nullish(z.array(tagSchema)), z.transform((v) => v ?? [])),
});
export type Contact = z.infer<typeof contactSchema>;

/** One contact as `GET /contacts/{id}` answers it: with the other identities WhatsApp knows it by. */
export const contactDetailSchema = z.extend(contactSchema, {
  aliases: z.pipe(z.nullish(z.array(z.string())), z.transform((v) => v ?? [])),
});
export type ContactDetail = z.infer<typeof contactDetailSchema>;

/** The connection name shown in the table. */
export function connectionNameOf(contact: Contact): string {
  return contact.whatsappName ?? contact.whatsapp?.name ?? '';
}
