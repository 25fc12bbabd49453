/**
 * The quick answers of the ticket input: `GET /quick-messages/list?ticketId=` (what the user
 * sees, by shortcode, with `{{name}}`, `{{firstName}}`, `{{queue}}`, `{{protocol}}` and
 * `{{user}}` already filled by the server for the open ticket) and a quick message's file as a
 * `File` (docs/quick-messages.md).
 */
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api } from '../../../../lib/api';

export const quickAnswerSchema = z.looseObject({
  id: z.number(),
  shortcode: z.string(),
  message: z.pipe(z.nullish(z.string()), z.transform((v) => v ?? '')),
  mediaPath: z.nullish(z.string()),
  mediaName: z.nullish(z.string()),
  isMedia: z.catch(z.boolean(), false),
});
export type QuickAnswer = z.infer<typeof quickAnswerSchema>;

/** The preview's length in the list (spec 1 "Quick-answer preview 90 characters"). */
export const QUICK_ANSWER_PREVIEW = 90;

/** The quick answers with their variables filled for ticket `ticketId`. */
export function useQuickAnswers(ticketId: number, enabled: boolean) {
  return useQuery({
    // Under the quick messages page's key, so its writes and live events refresh this list too.
    queryKey: ['quick-messages', 'answers', ticketId],
    queryFn: ({ signal }) =>
      api.get('/quick-messages/list', { schema: z.array(quickAnswerSchema), params: { ticketId }, signal }),
    enabled,
    staleTime: 30_000,
  });
}

/** The quick answers whose shortcode contains what follows "/" (case-insensitive). */
export function matchingAnswers(answers: QuickAnswer[], text: string): QuickAnswer[] {
  if (!text.startsWith('/')) return [];
  const wanted = text.slice(1).toLowerCase();
  return answers.filter((answer) => answer.shortcode.toLowerCase().includes(wanted));
}

export function preview(message: string): string {
  return message.length > QUICK_ANSWER_PREVIEW ? `${message.slice(0, QUICK_ANSWER_PREVIEW)}...` : message;
}

/** The file of a quick answer, to open in the media preview. */
export async function quickAnswerFile(answer: QuickAnswer): Promise<File> {
  const blob = await api.blob(answer.mediaPath ?? `/quick-messages/${answer.id}/media`);
  return new File([blob], answer.mediaName ?? 'file', { type: blob.type });
}
