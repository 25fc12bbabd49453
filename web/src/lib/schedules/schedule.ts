/** Schedules (docs/schedules.md): a message sent to a contact later, once or repeatedly. */
import { z } from 'zod';

/** PENDENTE (nothing sent yet), AGENDADA (recurring, more to send), ENVIADA (done), ERRO (failed). */
export const SCHEDULE_STATUSES = ['PENDENTE', 'AGENDADA', 'ENVIADA', 'ERRO'] as const;

export const scheduleSchema = z
  .object({
    id: z.number(),
    body: z.string(),
    contactId: z.number(),
    contact: z.object({ id: z.number(), name: z.string() }).nullish(),
    sendAt: z.string(),
    nextSendAt: z.string().nullish(),
    sentAt: z.string().nullish(),
    status: z.string(),
    openTicket: z.string().catch('disabled'),
    ticketUserId: z.number().nullish(),
    queueId: z.number().nullish(),
    statusTicket: z.string().catch('closed'),
    whatsappId: z.number().nullish(),
    mediaName: z.string().nullish(),
    assinar: z.boolean().catch(false),
    intervalo: z.number().catch(1),
    valorIntervalo: z.number().catch(1),
    enviarQuantasVezes: z.number().catch(1),
    tipoDias: z.number().catch(4),
    lastError: z.string().nullish(),
  })
  .loose();
export type Schedule = z.infer<typeof scheduleSchema>;

export const schedulesKeys = {
  all: ['schedules'] as const,
  list: (search: string) => [...schedulesKeys.all, 'list', search] as const,
};
