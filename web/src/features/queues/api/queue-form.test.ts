import { describe, expect, it } from 'vitest';
import { queueSchema } from '../types';
import { QUEUE_COLORS, emptyOption, emptyQueueForm, formFieldPaths, normaliseFieldPath, queueBody, queueFormOf, queueFormSchema, unusedQueueColor } from './queue-form';

const stored = queueSchema.parse({
  id: 4,
  name: 'Suporte',
  color: '#123456',
  orderQueue: null,
  greetingMessage: 'Oi',
  outOfHoursMessage: 'Fechado',
  closeTicket: false,
  ativarRoteador: true,
  tempoRoteador: 10,
  integrationId: 3,
  fileListId: 8,
  schedules: null,
  chatbots: [{ id: 1, name: 'Boletos', queueType: 'file', optFileId: 8, options: [{ id: 2, name: 'Segunda via', queueType: 'text' }] }],
});

describe('queue form', () => {
  it('round-trips a stored queue: ids, links and targets kept, other targets cleared', () => {
    const values = queueFormOf(stored);
    expect(values.chatbots[0]).toMatchObject({ optionId: 1, optFileId: '8', options: [{ optionId: 2, name: 'Segunda via' }] });
    values.chatbots[0].optQueueId = 5; // left over from another type: not sent
    const body = queueBody(values, { scheduleType: 'disabled', current: stored });
    expect(body).not.toHaveProperty('schedules');
    expect(body).toMatchObject({ orderQueue: null, integrationId: 3, fileListId: 8, tempoRoteador: 10 });
    expect(body.chatbots[0]).toMatchObject({ id: 1, queueType: 'file', optFileId: 8, optQueueId: null });
    expect(body.chatbots[0].options[0]).toMatchObject({ id: 2, queueType: 'text', options: [] });
    expect(queueBody(values, { scheduleType: 'queue', current: stored }).schedules).toHaveLength(7);
  });

  it('requires the out-of-hours message only when hours are kept per queue', async () => {
    const values = { ...emptyQueueForm(), name: 'Fila', color: '#abc' };
    expect((await queueFormSchema('company').safeParseAsync(values)).success).toBe(true);
    const result = await queueFormSchema('queue').safeParseAsync(values);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['outOfHoursMessage']);
  });

  it('checks options at any depth and each type needs its target', async () => {
    const deep = { ...emptyOption(), name: 'Nível 3', queueType: 'attendent' as const };
    const middle = { ...emptyOption(), name: 'Nível 2', options: [deep] };
    const top = { ...emptyOption(), name: 'Nível 1', greetingMessage: 'Escolha', options: [middle] };
    const result = await queueFormSchema('disabled').safeParseAsync({ ...emptyQueueForm(), name: 'Fila', color: '#abc', chatbots: [top] });
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['chatbots.0.options.0.options.0.optUserId', 'REQUIRED'],
      ['chatbots.0.options.0.greetingMessage', 'queues.validation.optionMessageRequired'],
    ]);
  });

  it('knows the nested field paths a server error may name', () => {
    const values = queueFormOf(stored);
    expect(formFieldPaths(values)).toEqual(expect.arrayContaining(['name', 'color', 'chatbots.0.name', 'chatbots.0.options.0.name']));
    expect(formFieldPaths(values)).not.toContain('chatbots.1.name');
    expect(normaliseFieldPath('chatbots[0].options[12].name')).toBe('chatbots.0.options.12.name');
  });
});

describe('a new queue', () => {
  it('gets a colour no other queue uses, whatever its case', () => {
    expect(emptyQueueForm().color).toBe(QUEUE_COLORS[0]);
    expect(emptyQueueForm([QUEUE_COLORS[0].toUpperCase(), QUEUE_COLORS[1]]).color).toBe(QUEUE_COLORS[2]);
    const all = [...QUEUE_COLORS];
    const made = unusedQueueColor(all);
    expect(made).toMatch(/^#[0-9a-f]{6}$/);
    expect(all).not.toContain(made);
    expect(unusedQueueColor([...all, made])).not.toBe(made);
  });

  it('needs a greeting when the company has other queues, as the server does', async () => {
    const values = { ...emptyQueueForm(), name: 'Fila', color: '#abc' };
    expect((await queueFormSchema('company').safeParseAsync(values)).success).toBe(true);
    const result = await queueFormSchema('company', true).safeParseAsync(values);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['greetingMessage', 'errors.ERR_WAPP_GREETING_REQUIRED']]);
    expect((await queueFormSchema('company', true).safeParseAsync({ ...values, greetingMessage: 'Olá' })).success).toBe(true);
  });
});
