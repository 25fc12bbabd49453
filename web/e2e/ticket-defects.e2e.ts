/**
 * Four defects of issue 15, each driven in the browser as a user would, at the three sizes of
 * `VIEWPORTS` (1366×768, 1920×1080 and a 390×844 phone):
 *
 * - defect 3, the signature: a message sent with the sign toggle on reaches the sandbox phone
 *   signed once, by the server's rule (`signed_body` in core/src/inbox/messages.rs:
 *   `*{name}*:\n{text}` while the company's `sendSignMessage` is on), and the bubble shows it
 *   signed once; switched off, the phone and the bubble get the text alone, and the switch stays
 *   off after a reload (spec 1: "sign message toggle (kept locally)");
 * - defect 5, "Novo" for an admin in no queue: the new-ticket dialog (a contact, a connection)
 *   lands in the ticket view;
 * - defect 6, a reaction to a contact's message (message actions → react → 👍): no error toast,
 *   the bubble shows it, it is still there after a reload, and the sandbox phone's message
 *   carries it: `GET /sandbox/{id}/sent/{externalId}` (through `phoneSentReaction` in
 *   support.ts) answers the connection's reaction to a message the phone sent, as the phone sees
 *   it;
 * - defect 8, two queues in a row: neither touches the colour field, and the greeting is typed
 *   only once the form asks for it, which the second queue's form does before anything is sent
 *   to the server.
 *
 * Each size works in a company of its own, made through the public signup (`POST /auth/signup`,
 * on by default; the seeded super admin switches `allowSignup` on for the run if it is off). The
 * "Novo" and queue defects need an admin in no queue and a company with no queue, and company 1
 * may already hold queues made by the other e2e files, which run before this one on the same
 * server: a fresh company per size depends on no file's order, and keeps the sizes apart.
 * The setup (the company, a paired sandbox connection, a contact writing, accepting the ticket)
 * goes through the API; what each test is about goes through the page.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page, Request, Response } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import {
  BASE_URL,
  VIEWPORTS,
  VIEWPORT_NAMES,
  allowSignupDuringRun,
  api,
  byTestId,
  openTicket,
  openTicketFromContact,
  phoneReceivedWhere,
  phoneSentReaction,
  signIn,
  signUpCompany,
  uniquePhone,
  uniqueStamp,
  type Company,
  type TicketBrief,
  screenshotOnFailure,
} from './support';

const PASSWORD = 'Defeitos@2024x';

interface QueueBrief {
  id: number;
  name: string;
  color: string;
  greetingMessage: string;
}

/** Error toasts the page showed at any moment (they vanish after 3 s), recorded from the start. */
async function recordErrorToasts(browser: Browser): Promise<void> {
  await browser.context.addInitScript(() => {
    const seen = new WeakSet<Element>();
    const texts: string[] = [];
    Object.assign(window, { chatflowErrorToasts: texts });
    new MutationObserver(() => {
      for (const toast of document.querySelectorAll('[data-testid="toast-error"]')) {
        if (seen.has(toast)) continue;
        seen.add(toast);
        texts.push(toast.textContent ?? '');
      }
    }).observe(document, { childList: true, subtree: true });
  });
}

async function errorToasts(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { chatflowErrorToasts?: string[] }).chatflowErrorToasts ?? []);
}

/** Opens an MUI select (by its hidden input's test id) and picks the option showing `label`. */
async function chooseInSelect(page: Page, inputTestId: string, label: string): Promise<void> {
  await page.locator(`.MuiInputBase-root:has(${byTestId(inputTestId)}) [role="combobox"]`).click();
  await page.locator('li[role="option"]', { hasText: label }).click();
}

/** The one bubble body holding `text` (fails when there is none or more than one). */
async function bubbleWith(page: Page, text: string) {
  const bodies = page.locator('[data-testid^="message-body-"]', { hasText: text });
  await bodies.first().waitFor({ timeout: 20_000 });
  expect(await bodies.count(), `bubbles holding "${text}"`).toBe(1);
  return bodies.first();
}

/** What the phone received holding `text`, once it arrived (every such message). */
async function receivedWith(company: Company, phone: string, text: string): Promise<string[]> {
  const found = await phoneReceivedWhere(company, phone, `"${text}"`, (m) => m.body.includes(text));
  return found.map((m) => m.body);
}

/** Waits for a dialog to close; failing, says what the server answered meanwhile. */
async function closes(dialog: Locator, answers: string[]): Promise<void> {
  const closed = await dialog.waitFor({ state: 'hidden', timeout: 20_000 }).then(
    () => true,
    () => false,
  );
  expect(closed, `the dialog stayed open; the server answered: ${answers.join(' | ')}`).toBe(true);
}

/**
 * The sign toggle, inline (a toggle button with `aria-pressed`) or, when the text field would be
 * too narrow, in the input's "more" menu (a checkbox item with `aria-checked`; docs/inbox.md
 * "The message input"). `click` toggles it; answers whether it is on before that.
 */
async function signToggle(page: Page, click = false): Promise<boolean> {
  await page.locator(`${byTestId('input-sign')}, ${byTestId('input-more')}`).first().waitFor();
  const inline = page.locator(`${byTestId('input-sign')}[aria-pressed]`);
  if ((await inline.count()) > 0) {
    const on = (await inline.getAttribute('aria-pressed')) === 'true';
    if (click) await inline.click();
    return on;
  }
  await page.locator(byTestId('input-more')).click();
  const item = page.locator(byTestId('input-more-menu')).locator(byTestId('input-sign'));
  const on = (await item.getAttribute('aria-checked')) === 'true';
  if (click) await item.click();
  else await page.keyboard.press('Escape');
  await item.waitFor({ state: 'hidden' });
  return on;
}

allowSignupDuringRun();

describe.each(VIEWPORT_NAMES)('ticket defects of issue 15 at %s size', (size) => {
  const stamp = uniqueStamp();
  let company: Company;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    company = await signUpCompany({ label: 'Defeitos', email: `defects-${size}`, size, stamp, password: PASSWORD });
    browser = await launchBrowser({ viewport: VIEWPORTS[size], mobile: size === 'phone' });
    await recordErrorToasts(browser);
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error(`[page error at ${size}]`, error.message));
    await signIn(page, company.adminEmail, PASSWORD);
  });

  screenshotOnFailure(`ticket-defects-${size}`, () => page);

  afterAll(async () => {
    await browser?.close();
  });

  it('"Novo" opens a ticket for an admin in no queue and lands in the ticket view (defect 5)', async () => {
    expect(await api<QueueBrief[]>('GET', '/queue', company.token), 'the company has no queue').toEqual([]);
    const contactName = `Novo ${size} ${stamp}`;
    await api('POST', '/contacts', company.token, { name: contactName, number: uniquePhone() });

    await page.goto(`${BASE_URL}/tickets`);
    await page.locator(byTestId('tickets-new')).click();
    const dialog = page.locator(byTestId('new-ticket-dialog'));
    await dialog.waitFor();
    await page.locator(byTestId('new-ticket-contact')).pressSequentially(contactName.slice(0, 12));
    await page.locator('li[role="option"]', { hasText: contactName }).click();
    await chooseInSelect(page, 'new-ticket-connection', company.connectionName);
    await page.locator(byTestId('new-ticket-submit')).click();

    const landed = await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/, { timeout: 20_000 }).then(
      () => true,
      () => false,
    );
    expect(landed, `still at ${page.url()}; the dialog reads: ${(await dialog.innerText().catch(() => '')).replace(/\s+/g, ' ')}`).toBe(true);
    await page.locator(byTestId('ticket-view')).waitFor({ timeout: 20_000 });
    await expect.poll(async () => page.locator(byTestId('ticket-header-name')).innerText()).toContain(contactName);
    const uuid = page.url().split('/').pop() ?? '';
    const ticket = await api<TicketBrief>('GET', `/tickets/u/${uuid}`, company.token);
    expect(ticket).toMatchObject({ status: 'open', userId: company.adminId, queueId: null });
    expect(ticket.contact.name).toBe(contactName);
    expect(await errorToasts(page)).toEqual([]);
  });

  it('signs a sent message once with the toggle on, and not at all with it off, kept after a reload (defect 3)', async () => {
    const setting = await api<{ value: string }>('GET', '/setting/sendSignMessage', company.token);
    expect(setting.value, "the company's sendSignMessage").toBe('enabled');
    const { ticket, phone } = await openTicketFromContact(company, `Assina ${size} ${stamp}`, 'Oi, tudo bem?');
    await openTicket(page, ticket.uuid);
    expect(await signToggle(page), 'the sign toggle starts on').toBe(true);

    const signedText = `Mensagem assinada ${stamp}`;
    await page.locator(byTestId('message-input')).fill(signedText);
    await page.locator(byTestId('message-send')).click();
    // The server's rule, as the phone receives it: the name in bold, a colon, the text below.
    expect(await receivedWith(company, phone, signedText)).toEqual([`*${company.adminName}*:\n${signedText}`]);
    const signedBubble = await bubbleWith(page, signedText);
    // Raw (`*Ana*:`) or rendered as WhatsApp formatting (bold, no asterisks): the same words.
    await expect.poll(async () => (await signedBubble.innerText()).replaceAll('*', '')).toBe(`${company.adminName}:\n${signedText}`);

    await signToggle(page, true);
    expect(await signToggle(page)).toBe(false);
    await page.reload();
    await page.locator(byTestId('message-input')).waitFor({ timeout: 20_000 });
    expect(await signToggle(page), 'the toggle stays off after a reload').toBe(false);

    const plainText = `Mensagem sem assinatura ${stamp}`;
    await page.locator(byTestId('message-input')).fill(plainText);
    await page.locator(byTestId('message-send')).click();
    expect(await receivedWith(company, phone, plainText)).toEqual([plainText]);
    const plainBubble = await bubbleWith(page, plainText);
    await expect.poll(async () => plainBubble.innerText()).toBe(plainText);
    expect(await errorToasts(page)).toEqual([]);
  });

  it("reacts to a contact's message: no error, the bubble shows it, the sandbox phone's message carries it (defect 6)", async () => {
    const question = `Pode me ajudar? ${stamp}`;
    const { ticket, externalId } = await openTicketFromContact(company, `Reage ${size} ${stamp}`, question);
    expect(await phoneSentReaction(company.token, company.connectionId, externalId), 'no reaction on the phone yet').toBe('');
    await openTicket(page, ticket.uuid);
    const body = await bubbleWith(page, question);
    const id = ((await body.getAttribute('data-testid')) ?? '').replace('message-body-', '');
    expect(id).toMatch(/^\d+$/);

    await page.locator(byTestId(`message-menu-${id}`)).click();
    await page.locator(byTestId('message-action-react')).click();
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/messages/${id}/react`));
    await page.locator(byTestId('message-react-👍')).click();
    const response = await answered;
    expect(response.status(), `POST /messages/${id}/react answered ${await response.text()}`).toBe(200);
    await expect.poll(async () => page.locator(byTestId(`message-reactions-${id}`)).innerText(), { timeout: 20_000 }).toContain('👍');
    expect(await errorToasts(page)).toEqual([]);

    // Stored (which the server does only after the sandbox took it), so it is there after a reload.
    await openTicket(page, ticket.uuid);
    await expect.poll(async () => page.locator(byTestId(`message-reactions-${id}`)).innerText(), { timeout: 20_000 }).toContain('👍');
    // The sandbox phone's message carries it.
    await expect.poll(async () => phoneSentReaction(company.token, company.connectionId, externalId), { timeout: 20_000 }).toBe('👍');
  });

  it('creates two queues in a row without touching the colour, the greeting asked for before saving the second (defect 8)', async () => {
    expect(await api<QueueBrief[]>('GET', '/queue', company.token), 'the company has no queue yet').toEqual([]);
    // Every POST /queue the page makes, when it is made, and what the server answered to each.
    const isQueuePost = (request: Request) => request.method() === 'POST' && new URL(request.url()).pathname === '/queue';
    const posts: Request[] = [];
    const answers: string[] = [];
    const onRequest = (request: Request) => {
      if (isQueuePost(request)) posts.push(request);
    };
    const onResponse = (response: Response) => {
      if (isQueuePost(response.request())) void response.text().then((body) => answers.push(`${response.status()} ${body.slice(0, 160)}`));
    };
    page.on('request', onRequest);
    page.on('response', onResponse);
    try {
      await page.goto(`${BASE_URL}/queues`);
      await page.locator(byTestId('queues-page')).waitFor({ timeout: 20_000 });
      const first = `Vendas ${size} ${stamp}`;
      const second = `Suporte ${size} ${stamp}`;
      const dialog = page.locator(byTestId('queue-dialog'));

      // The first queue: a name, nothing else.
      await page.locator(byTestId('queues-add')).click();
      await dialog.waitFor();
      await page.locator(byTestId('queue-dialog-name')).fill(first);
      await page.locator(byTestId('queue-dialog-save')).click();
      await closes(dialog, answers);
      await page.locator('[data-testid^="queues-row-"]', { hasText: first }).waitFor({ timeout: 20_000 });
      expect(posts).toHaveLength(1);

      // The second: a name; saving asks for the greeting without a request to the server.
      await page.locator(byTestId('queues-add')).click();
      await dialog.waitFor();
      await page.locator(byTestId('queue-dialog-name')).fill(second);
      const greeting = page.locator(byTestId('queue-dialog-greetingMessage'));
      await page.locator(byTestId('queue-dialog-save')).click();
      await expect.poll(async () => greeting.getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
      expect(posts.length, `POST /queue sent before the greeting was asked for; answers: ${answers.join(' | ')}`).toBe(1);
      const helper = (await greeting.getAttribute('aria-describedby')) ?? '';
      expect(helper, 'the greeting field says why').not.toBe('');
      expect(await page.locator(`[id="${helper}"]`).innerText()).toMatch(/saudação/i);

      await greeting.fill(`Olá! Escolha uma fila. ${stamp}`);
      await page.locator(byTestId('queue-dialog-save')).click();
      await closes(dialog, answers);
      await page.locator('[data-testid^="queues-row-"]', { hasText: second }).waitFor({ timeout: 20_000 });
      expect(posts).toHaveLength(2);
      await expect.poll(() => answers.length).toBe(2);
      expect(answers.map((a) => a.slice(0, 1)), answers.join(' | ')).toEqual(['2', '2']);

      const queues = await api<QueueBrief[]>('GET', '/queue', company.token);
      const byName = new Map(queues.map((q) => [q.name, q]));
      expect([...byName.keys()].sort()).toEqual([first, second].sort());
      expect(byName.get(first)?.color).not.toBe(byName.get(second)?.color);
      expect(byName.get(second)?.greetingMessage).toBe(`Olá! Escolha uma fila. ${stamp}`);
      expect(await errorToasts(page)).toEqual([]);
    } finally {
      page.off('request', onRequest);
      page.off('response', onResponse);
    }
  });
});
