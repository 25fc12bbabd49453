/**
 * What a WhatsApp Web connection does beyond carrying messages, in the browser, against the real
 * server whose sessions run on the scripted fake and whose clock and jobs the test moves
 * (`bin-server/examples/whatsapp_fake_server.rs`; docs/channels.md "Import of old messages",
 * "Gaps after an outage", "Delivery assurance"):
 *
 * - the phone's history arrives in two parts: the import card counts live (preparing, 3/3, then
 *   3/5), the import ends, and "close imported tickets" closes the imported conversations;
 * - the socket drops for five minutes: once it is back and two more minutes have passed, the gap
 *   check (the phone answers no history) writes the notice line in the contact's conversation,
 *   the connection's row shows the gap and what the check did, and dismissing it hides it;
 * - an answer stays at one tick for eleven minutes: the delivery check flags it, the conversation
 *   shows the warning beside its tick and the connection's delivery health lists it.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * CHATFLOW_E2E_FAKE_WHATSAPP_URL (the fake's control API), optionally CHROMIUM_PATH.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, api, byTestId, eventually, login, screenshotOnFailure, signIn, uniquePhone, uniqueStamp } from './support';

const FAKE = (process.env.CHATFLOW_E2E_FAKE_WHATSAPP_URL ?? '').replace(/\/$/, '');
const stamp = uniqueStamp();
const PHONE = uniquePhone();
/** Numbers of this run's contacts: one prefix, a last digit each. */
const prefix = uniquePhone().slice(0, -1);
const ANA = `${prefix}1`;
const BRUNO = `${prefix}2`;
const CAIO = `${prefix}3`;
const DORA = `${prefix}4`;
const DAY = 86_400_000;

let browser: Browser;
let page: Page;
let adminToken: string;

/** Calls the fake's control API; `undefined` while the connection has no session yet (404). */
async function fake<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T | undefined> {
  const response = await fetch(`${FAKE}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 404) return undefined;
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

const session = (id: number) => fake<{ sessions: number }>('GET', `/sessions/${id}`);
/** Moves the server's clock on by `minutes`. */
const advance = (minutes: number) => fake<{ now: string }>('POST', '/clock/advance', { seconds: minutes * 60 });
/** Runs the jobs due on the server's clock; answers the kinds that ran. */
async function runDueJobs(): Promise<string[]> {
  return (await fake<{ ran: string[] }>('POST', '/jobs/run'))?.ran ?? [];
}

interface HistoryText {
  chat: string;
  id: string;
  body: string;
  at: string;
  name?: string;
}
/** A part of the phone's history, as WhatsApp sends it after a link. */
const historyPart = (id: number, messages: HistoryText[], progress: number) => fake('POST', `/sessions/${id}/history`, { messages, progress });
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();

interface ConnectionState {
  status: string;
  downSince: string | null;
  lastGap: { state: string; noted: number } | null;
}
const connection = (id: number) => api<ConnectionState>('GET', `/whatsapp/${id}`, adminToken);

interface TicketRef {
  id: number;
  uuid: string;
  status: string;
  contact: { number: string };
}
/** The admin's ticket of the contact `number` in `status`, once there is one. */
async function ticketOf(number: string, status: string): Promise<TicketRef> {
  return eventually(async () => {
    const list = await api<{ tickets: TicketRef[] }>('GET', `/tickets?showAll=true&status=${status}`, adminToken);
    return list.tickets.find((t) => t.contact.number === number);
  }, `the ${status} ticket of ${number}`);
}

const statusOf = (id: number) => page.locator(byTestId(`connections-status-${id}`)).innerText();

describe('a WhatsApp Web connection: the import of old messages, a gap after an outage, an answer not delivered', () => {
  beforeAll(async () => {
    expect(BASE_URL, 'CHATFLOW_E2E_BASE_URL').not.toBe('');
    expect(FAKE, 'CHATFLOW_E2E_FAKE_WHATSAPP_URL').not.toBe('');
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
  });

  screenshotOnFailure('whatsapp-web-assurance', () => page);

  it('imports the phone’s history live, notes a gap in the conversation and flags an answer stuck at one tick', async () => {
    // A connection that imports the last 30 days into a queue of its own, linked.
    const queue = await api<{ id: number }>('POST', '/queue', adminToken, { name: `Histórico ${stamp}`, color: '#555555' });
    const created = await api<{ id: number }>('POST', '/whatsapp', adminToken, {
      name: `WhatsApp ${stamp}`,
      provider: 'beta',
      enableImportMessage: true,
      importOldMessages: daysAgo(30),
      // Before the server's clock, which stands still from its start unless the test moves it.
      importRecentMessages: new Date(Date.now() - 3_600_000).toISOString(),
      queueIdImportMessages: queue.id,
    });
    const id = created.id;
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${BASE_URL}/connections`);
    await page.locator(byTestId(`connections-row-${id}`)).waitFor({ timeout: 20_000 });
    await api('POST', `/whatsappsession/${id}`, adminToken, {});
    await eventually(() => session(id), 'the session');
    await fake('POST', `/sessions/${id}/paired`, { number: PHONE });
    // Shown live: the page's socket is in before the history comes.
    await expect.poll(() => statusOf(id), { timeout: 20_000 }).toMatch(/Conectado/);
    const card = page.locator(byTestId(`connections-import-card-${id}`));
    const cardState = page.locator(byTestId(`connections-import-card-${id}-state`));

    // 1. The first part of the history (the phone is half way): the card prepares, then counts
    //    what the import job wrote.
    await historyPart(
      id,
      [
        { chat: ANA, id: `3EB0${stamp}A1`.toUpperCase(), body: 'Meu pedido chegou?', at: daysAgo(5), name: 'Ana' },
        { chat: ANA, id: `3EB0${stamp}A2`.toUpperCase(), body: 'Obrigada!', at: daysAgo(4), name: 'Ana' },
        { chat: BRUNO, id: `3EB0${stamp}B1`.toUpperCase(), body: 'Qual o horário?', at: daysAgo(3), name: 'Bruno' },
      ],
      50,
    );
    await card.waitFor({ timeout: 20_000 });
    await expect.poll(() => cardState.innerText(), { timeout: 20_000 }).toBe('Preparando...');
    expect(await runDueJobs()).toContain('importHistory');
    await expect.poll(() => cardState.innerText(), { timeout: 20_000 }).toBe('3/3 · 100%');

    // 2. The last part: the total grows, then the job writes it and the import ends.
    await historyPart(
      id,
      [
        { chat: ANA, id: `3EB0${stamp}A3`.toUpperCase(), body: 'Tudo certo.', at: daysAgo(2), name: 'Ana' },
        { chat: CAIO, id: `3EB0${stamp}C1`.toUpperCase(), body: 'Vocês abrem sábado?', at: daysAgo(1), name: 'Caio' },
      ],
      100,
    );
    await expect.poll(() => cardState.innerText(), { timeout: 20_000 }).toBe('3/5 · 60%');
    expect(await runDueJobs()).toContain('importHistory');
    await card.waitFor({ state: 'hidden', timeout: 20_000 });
    const imported = await Promise.all([ANA, BRUNO, CAIO].map((number) => ticketOf(number, 'pending')));

    // 3. The imported conversations wait for the button, which closes them.
    const close = page.locator(byTestId(`connections-close-imported-${id}`));
    await close.click({ timeout: 20_000 });
    await page.getByText('Atendimentos importados fechados: 3').waitFor({ timeout: 20_000 });
    await close.waitFor({ state: 'hidden', timeout: 20_000 });
    const closed = await Promise.all([ANA, BRUNO, CAIO].map((number) => ticketOf(number, 'closed')));
    expect(closed.map((t) => t.id)).toEqual(imported.map((t) => t.id));
    // A minute on, so what follows is apart from the import on the server's clock.
    await advance(1);

    // 4. A contact writes live: a pending conversation.
    await fake('POST', `/sessions/${id}/message`, { from: DORA, id: `3A${stamp}D1`.toUpperCase(), body: 'Oi, ainda estão aí?', name: 'Dora' });
    const ticket = await ticketOf(DORA, 'pending');

    // 5. The socket drops for five minutes, then the rebuilt session connects.
    await fake('POST', `/sessions/${id}/drop`);
    await eventually(async () => ((await connection(id)).downSince ? true : undefined), 'the outage to begin');
    await page.locator(byTestId(`connections-down-${id}`)).waitFor({ timeout: 20_000 });
    await advance(5);
    await eventually(async () => ((await session(id))?.sessions ?? 0) >= 2 || undefined, 'the rebuilt session', 30_000);
    await fake('POST', `/sessions/${id}/connect`);
    const gap = page.locator(byTestId(`connections-gap-${id}`));
    await gap.waitFor({ timeout: 20_000 });
    expect(await page.locator(byTestId(`connections-gap-state-${id}`)).innerText()).toBe('Verificando…');

    // 6. Nothing said the queue was delivered: two minutes later the check runs. Dora's is the
    //    one conversation open or moved since the gap began (the imported ones were closed
    //    before it); it has a message to anchor on, so the phone is asked for what came before.
    expect(await runDueJobs()).not.toContain('checkGap');
    await advance(2);
    expect(await runDueJobs()).toContain('checkGap');
    await expect.poll(() => gap.getAttribute('data-state'), { timeout: 20_000 }).toBe('asked');
    expect((await connection(id)).lastGap).toMatchObject({ state: 'asked', fetched: 1, noted: 0 });
    expect(await page.locator(byTestId(`connections-gap-state-${id}`)).innerText()).toMatch(/^Conversas pedidas ao celular: 1 · aguardando a resposta até .+$/);

    // 7. The phone takes the request but never answers: five minutes on, the conversation gets
    //    the notice.
    await advance(4);
    expect(await runDueJobs()).not.toContain('checkGap');
    await advance(1);
    expect(await runDueJobs()).toContain('checkGap');
    await expect.poll(() => gap.getAttribute('data-state'), { timeout: 20_000 }).toBe('checked');
    expect((await connection(id)).lastGap).toMatchObject({ state: 'checked', fetched: 1, noted: 1 });
    expect(await page.locator(byTestId(`connections-gap-state-${id}`)).innerText()).toBe('Conversas pedidas ao celular: 1 · marcadas com o aviso: 1');
    expect(await page.locator(byTestId(`connections-gap-interval-${id}`)).innerText()).toMatch(/^Mensagens podem estar faltando entre .+ e .+$/);

    // 8. The admin dismisses the gap: the row no longer shows it, nor does the server.
    await page.locator(byTestId(`connections-gap-dismiss-${id}`)).click();
    await gap.waitFor({ state: 'hidden', timeout: 20_000 });
    expect((await connection(id)).lastGap).toBeNull();

    // 9. The conversation shows the notice line where the gap began.
    await page.goto(`${BASE_URL}/tickets/${ticket.uuid}`);
    const notice = page.locator('[data-kind="gap"]');
    await notice.first().waitFor({ timeout: 20_000 });
    expect(await notice.count()).toBe(1);
    expect(await notice.first().innerText()).toMatch(/A conexão ficou fora do ar de .+ a .+: mensagens deste período podem estar faltando/);

    // 10. The attendant answers; WhatsApp takes it (one tick) and no phone confirms it.
    const answer = await api<{ id: number }>('POST', `/messages/${ticket.id}`, adminToken, { body: `Estamos sim! ${stamp}`, signMessage: false });
    const message = page.locator(byTestId(`message-${answer.id}`));
    await message.waitFor({ timeout: 20_000 });
    await expect.poll(() => message.locator(byTestId('message-ack')).getAttribute('data-state'), { timeout: 20_000 }).toBe('sent');
    expect(await page.locator(byTestId(`message-delivery-issue-${answer.id}`)).count()).toBe(0);

    // 11. Eleven minutes later the delivery check flags it, live in the open conversation.
    await advance(11);
    expect(await runDueJobs()).toContain('checkDelivery');
    await page.locator(byTestId(`message-delivery-issue-${answer.id}`)).waitFor({ timeout: 20_000 });

    // 12. The connection's delivery health lists it.
    await page.goto(`${BASE_URL}/connections`);
    await page.locator(byTestId(`connections-health-${id}`)).click({ timeout: 20_000 });
    const dialog = page.locator(byTestId('delivery-health-dialog'));
    await dialog.waitFor({ timeout: 20_000 });
    await expect.poll(() => dialog.locator(byTestId('delivery-health-count')).innerText(), { timeout: 20_000 }).toBe('1 mensagem não entregue nas últimas 24 horas');
    const listed = dialog.locator(byTestId(`delivery-health-message-${answer.id}`));
    await listed.waitFor({ timeout: 20_000 });
    expect(await listed.innerText()).toContain('Dora');
    expect(await listed.innerText()).toContain(`Estamos sim! ${stamp}`);
    expect(await statusOf(id)).toMatch(/Conectado/);
  });
});
