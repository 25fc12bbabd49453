/**
 * Queues and chatbot options as the server sends them (spec 2 §3 "Queue", "Chatbot option";
 * core/src/queue.rs). Schedule rows are in lib/business-hours.
 */
import { z } from 'zod';
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

export const chatbotOptionSchema: z.ZodType<ChatbotOption, unknown> = z.lazy(() =>
  z.object({
    id: z.number().nullish().transform((v) => v ?? null),
    name: z.string().nullish().transform((v) => v ?? ''),
    greetingMessage: z.string().nullish().transform((v) => v ?? ''),
    queueType: z.enum(QUEUE_TYPES).catch('text'),
    optQueueId: z.number().nullish().transform((v) => v ?? null),
    optUserId: z.number().nullish().transform((v) => v ?? null),
    optIntegrationId: z.number().nullish().transform((v) => v ?? null),
    optFileId: z.number().nullish().transform((v) => v ?? null),
    closeTicket: z.boolean().nullish().transform((v) => v ?? false),
    options: z
      .array(chatbotOptionSchema)
      .nullish()
      .transform((v) => v ?? []),
  }),
);

/** `GET /queue` rows and `GET /queue/{id}`. */
export const queueSchema = z.object({
  id: z.number(),
  name: z.string(),
  color: z.string().nullish().transform((v) => v ?? ''),
  orderQueue: z.number().nullish().transform((v) => v ?? null),
  greetingMessage: z.string().nullish().transform((v) => v ?? ''),
  outOfHoursMessage: z.string().nullish().transform((v) => v ?? ''),
  closeTicket: z.boolean().nullish().transform((v) => v ?? false),
  ativarRoteador: z.boolean().nullish().transform((v) => v ?? false),
  tempoRoteador: z.number().nullish().transform((v) => v ?? 0),
  integrationId: z.number().nullish().transform((v) => v ?? null),
  fileListId: z.number().nullish().transform((v) => v ?? null),
  schedules: z
    .array(scheduleRowSchema)
    .nullish()
    .transform((v) => v ?? []),
  chatbots: z
    .array(chatbotOptionSchema)
    .nullish()
    .transform((v) => v ?? []),
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
