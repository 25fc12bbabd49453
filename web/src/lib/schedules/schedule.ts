/** Schedules (docs/schedules.md): a message sent to a contact later, once or repeatedly. */
import { z } from 'zod/mini';

/** PENDENTE (nothing sent yet), AGENDADA (recurring, more to send), ENVIADA (done), ERRO (failed). */
export const SCHEDULE_STATUSES = ['PENDENTE', 'AGENDADA', 'ENVIADA', 'ERRO'] as const;

export const scheduleSchema = z.looseObject({
  id: z.number(),
  body: z.string(),
  contactId: z.number(),
  contact: z.nullish(z.object({ id: z.number(), name: z.string() })),
  sendAt: z.string(),
  nextSendAt: z.nullish(z.string()),
  sentAt: z.nullish(z.string()),
  status: z.string(),
  openTicket: z.catch(z.string(), 'disabled'),
  ticketUserId: z.nullish(z.number()),
  queueId: z.nullish(z.number()),
  statusTicket: z.catch(z.string(), 'closed'),
  whatsappId: z.nullish(z.number()),
  mediaName: z.nullish(z.string()),
  assinar: z.catch(z.boolean(), false),
  intervalo: z.catch(z.number(), 1),
  valorIntervalo: z.catch(z.number(), 1),
  enviarQuantasVezes: z.catch(z.number(), 1),
  tipoDias: z.catch(z.number(), 4),
  lastError: z.nullish(z.string()),
});
export type Schedule = z.infer<typeof scheduleSchema>;

export const schedulesKeys = {
  all: ['schedules'] as const,
  list: (search: string) => [...schedulesKeys.all, 'list', search] as const,
};
