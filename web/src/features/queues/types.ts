/**
 * Queues and chatbot options as the server sends them (spec 2 §3 "Queue", "Chatbot option";
 * core/src/queue.rs). Schedule rows are in lib/business-hours.
 */
import { z } from 'zod/mini';
import { scheduleRowSchema, type ScheduleRow } from '../../lib/business-hours/week';

/** The option types of spec 2 §9 ("attendent" is the wire spelling). */
export const QUEUE_TYPES = ['text', 'attendent', 'queue', 'integration', 'file'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

/** Rotation times of spec 2 §9, in minutes; 0 is the default. */
export const ROTATION_MINUTES = [0, 2, 5, 10, 15, 30, 45, 60] as const;

/** A chatbot option as the server sends it, nested to any depth. */
export interface ChatbotOption {
  id: number | null;
  name: string;
  greetingMessage: string;
  queueType: QueueType;
  optQueueId: number | null;
  optUserId: number | null;
  optIntegrationId: number | null;
  optFileId: number | null;
  closeTicket: boolean;
  options: ChatbotOption[];
}

export const chatbotOptionSchema: z.ZodMiniType<ChatbotOption, unknown> = z.lazy(() =>
  z.object({
    id: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
    name: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
    greetingMessage: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
    queueType: z.catch(z.enum(QUEUE_TYPES), 'text'),
    optQueueId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
    optUserId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
    optIntegrationId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
    optFileId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
    closeTicket: z.pipe(z.nullish(z.boolean()), z.transform((v) => v ?? false)),
    options: z.pipe(z.nullish(z.array(chatbotOptionSchema)), z.transform((v) => v ?? [])),
  }),
);

/** `GET /queue` rows and `GET /queue/{id}`. */
export const queueSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  orderQueue: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  greetingMessage: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  outOfHoursMessage: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  closeTicket: z.pipe(z.nullish(z.boolean()), z.transform((v) => v ?? false)),
  ativarRoteador: z.pipe(z.nullish(z.boolean()), z.transform((v) => v ?? false)),
  tempoRoteador: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? 0)),
  integrationId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  fileListId: z.pipe(z.nullish(z.number()), z.transform((v) => v ?? null)),
  schedules: z.pipe(z.nullish(z.array(scheduleRowSchema)), z.transform((v) => v ?? [])),
  chatbots: z.pipe(z.nullish(z.array(chatbotOptionSchema)), z.transform((v) => v ?? [])),
});
export type Queue = z.infer<typeof queueSchema>;

/** The body of `POST /queue` and `PUT /queue/{id}`; `schedules` omitted keeps the stored rows. */
export interface QueueInput {
  name: string;
  color: string;
  orderQueue: number | null;
  greetingMessage: string;
  outOfHoursMessage: string;
  closeTicket: boolean;
  ativarRoteador: boolean;
  tempoRoteador: number;
  integrationId: number | null;
  fileListId: number | null;
  schedules?: ScheduleRow[];
  chatbots: ChatbotOption[];
}
