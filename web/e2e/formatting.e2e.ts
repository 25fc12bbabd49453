/**
 * WhatsApp formatting and quick messages in the browser (issue 15), at the three sizes of
 * `VIEWPORTS` (1366×768, 1920×1080 and a 390×844 phone):
 *
 * - a contact writes `*bold* _italic_ ~strike~ ```mono````: the bubble renders <strong>, <em>,
 *   <s> and <code> (`web/src/components/FormattedText.tsx`) without the markers, and so does the
 *   ticket list's preview of its last message;
 * - the attendant's formatted reply reaches the sandbox phone exactly as typed (markers and all:
 *   the phone formats it; the company's signature is off, so nothing is added);
 * - a quick message with `{{name}}`, picked after "/" in the ticket input, is inserted with the
 *   contact's name (`GET /quick-messages/list?ticketId=`) and reaches the phone filled;
 * - a quick message with an image, picked the same way and sent from the media preview, reaches
 *   the phone as an image (`mediaType: image`, `image/png`), not as a document.
 *
 * Each size works in a company of its own made through the public signup (see
 * `signUpCompany` in support.ts), whose `sendSignMessage` is switched off so the phone gets the
 * text as typed. The setup (company, paired sandbox connection, a contact writing, accepting the
 * ticket, the quick messages) goes through the API; what each test is about goes through the page.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
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
  signIn,
  signUpCompany,
  uniqueStamp,
  type Company,
  type TicketBrief,
  screenshotOnFailure,
} from './support';

const PASSWORD = 'Formato@2024x';
const CONTACT_TEXT = '*negrito* _itálico_ ~riscado~ ```mono```';
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** The texts of the elements `tag` inside `within`. */
async function texts(within: Locator, tag: string): Promise<string[]> {
  return within.locator(tag).allInnerTexts();
}

/** Types "/<shortcode>" in the ticket input and picks that quick message from the list. */
async function pickQuickMessage(page: Page, id: number, shortcode: string): Promise<void> {
  const input = page.locator(byTestId('message-input'));
  await input.fill('');
  await input.pressSequentially(`/${shortcode}`);
  await page.locator(byTestId(`quick-answer-${id}`)).click();
}

/** A shared quick message of the company, with a PNG when `image`. */
async function quickMessage(company: Company, shortcode: string, message: string, image = false): Promise<number> {
  const created = await api<{ id: number }>('POST', '/quick-messages', company.token, { shortcode, message, geral: true, isMedia: image });
  if (image) {
    const form = new FormData();
    form.append('typeArch', 'quickMessage');
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'catalogo.png');
    const response = await fetch(`${BASE_URL}/quick-messages/${created.id}/media-upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${company.token}` },
      body: form,
    });
    expect(response.status, `the upload answered ${await response.text()}`).toBe(200);
  }
  return created.id;
}

allowSignupDuringRun();

describe.each(VIEWPORT_NAMES)('WhatsApp formatting and quick messages at %s size', (size) => {
  const stamp = uniqueStamp();
  let company: Company;
  let browser: Browser;
  let page: Page;
  let ticket: TicketBrief;
  let phone: string;
  const contactName = `Maria Formato ${size} ${stamp}`;

  beforeAll(async () => {
    company = await signUpCompany({ label: 'Formatação', email: `formatting-${size}`, size, stamp, password: PASSWORD });
    await api('PUT', '/settings/sendSignMessage', company.token, { value: 'disabled' });
    ({ ticket, phone } = await openTicketFromContact(company, contactName, CONTACT_TEXT));
    browser = await launchBrowser({ viewport: VIEWPORTS[size], mobile: size === 'phone' });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error(`[page error at ${size}]`, error.message));
    await signIn(page, company.adminEmail, PASSWORD);
  });

  screenshotOnFailure(`formatting-${size}`, () => page);

  afterAll(async () => {
    await browser?.close();
  });

  it("renders a contact's *bold* _italic_ ~strike~ ```mono``` in the bubble and in the list preview", async () => {
    await openTicket(page, ticket.uuid);
    const bubble = page.locator('[data-testid^="message-body-"]', { hasText: 'negrito' });
    await bubble.first().waitFor({ timeout: 20_000 });
    expect(await bubble.count()).toBe(1);
    expect(await texts(bubble, 'strong')).toEqual(['negrito']);
    expect(await texts(bubble, 'em')).toEqual(['itálico']);
    expect(await texts(bubble, 's')).toEqual(['riscado']);
    expect(await texts(bubble, 'code')).toEqual(['mono']);
    expect((await bubble.innerText()).trim(), 'no markers left').toBe('negrito itálico riscado mono');

    if (size === 'phone') await page.locator(byTestId('tickets-mobile-list')).click();
    const preview = page.locator(byTestId(`ticket-item-${ticket.id}`)).locator(byTestId('ticket-item-last'));
    await preview.waitFor({ timeout: 20_000 });
    await expect.poll(async () => texts(preview, 'strong')).toEqual(['negrito']);
    expect(await texts(preview, 'em')).toEqual(['itálico']);
    expect(await texts(preview, 's')).toEqual(['riscado']);
    expect(await texts(preview, 'code')).toEqual(['mono']);
    expect((await preview.innerText()).trim()).toBe('negrito itálico riscado mono');
  });

  it("sends the attendant's formatted reply to the phone as typed, and shows it formatted", async () => {
    await openTicket(page, ticket.uuid);
    const reply = `*Pedido* _enviado_ ~ontem~ \`\`\`48213\`\`\` ${stamp}`;
    await page.locator(byTestId('message-input')).fill(reply);
    await page.locator(byTestId('message-send')).click();
    const received = await phoneReceivedWhere(company, phone, `"${reply}"`, (m) => m.body.includes(stamp));
    expect(received.map((m) => m.body)).toEqual([reply]);
    const bubble = page.locator('[data-testid^="message-body-"]', { hasText: 'Pedido' });
    await bubble.first().waitFor({ timeout: 20_000 });
    expect(await texts(bubble, 'strong')).toEqual(['Pedido']);
    expect(await texts(bubble, 'code')).toEqual(['48213']);
  });

  it('fills {{name}} of a quick message with the contact\'s name, and the phone gets it filled', async () => {
    const shortcode = `ola${size}${stamp}`;
    const id = await quickMessage(company, shortcode, `Olá {{name}}, tudo bem? {{desconhecida}} ${stamp}`);
    await openTicket(page, ticket.uuid);
    await pickQuickMessage(page, id, shortcode);
    const filled = `Olá ${contactName}, tudo bem? {{desconhecida}} ${stamp}`;
    await expect.poll(async () => page.locator(byTestId('message-input')).inputValue()).toBe(filled);
    await page.locator(byTestId('message-send')).click();
    const received = await phoneReceivedWhere(company, phone, 'the quick message', (m) => m.body.startsWith('Olá '));
    expect(received.map((m) => m.body)).toEqual([filled]);
  });

  it('sends a quick message with an image, which the phone gets as an image', async () => {
    const shortcode = `foto${size}${stamp}`;
    const id = await quickMessage(company, shortcode, `Nosso catálogo ${stamp}`, true);
    await openTicket(page, ticket.uuid);
    await pickQuickMessage(page, id, shortcode);
    const dialog = page.locator(byTestId('media-preview'));
    await dialog.waitFor({ timeout: 20_000 });
    expect(await dialog.innerText()).toContain('catalogo.png');
    await dialog.locator(byTestId('media-send')).click();
    await dialog.waitFor({ state: 'hidden', timeout: 20_000 });
    const received = await phoneReceivedWhere(company, phone, 'the image', (m) => m.content.type === 'media');
    expect(received).toHaveLength(1);
    expect(received[0].content.media).toMatchObject({ mediaType: 'image', mimeType: 'image/png', fileName: 'catalogo.png' });
    expect(received[0].body).toContain(`Nosso catálogo ${stamp}`);
  });
});
