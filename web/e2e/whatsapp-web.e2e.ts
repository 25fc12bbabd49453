/**
 * A WhatsApp Web connection (provider `beta`) in the browser, against the real server whose
 * WhatsApp sessions run on the scripted fake (`bin-server/examples/whatsapp_fake_server.rs`,
 * driven through its control API where a phone would act): the admin adds a connection in the
 * dialog (WhatsApp is the proposed type), starts it, sees the QR code WhatsApp emits, switches to
 * linking by phone number and sees the code WhatsApp answers, the phone links → the dialog closes
 * and the row shows CONNECTED with the number; the socket drops → the row shows the connection
 * connecting again, and once the rebuilt session is up, CONNECTED again, all without reload; a
 * contact's message arrives as a pending ticket and the attendant's answer reaches WhatsApp.
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
const CONTACT = uniquePhone();

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

interface SessionState {
  sessions: number;
  calls: string[];
  sent: { to: string; id: string; text: string }[];
}

const session = (id: number) => fake<SessionState>('GET', `/sessions/${id}`);
const statusOf = (id: number) => page.locator(byTestId(`connections-status-${id}`)).innerText();

describe('a WhatsApp Web connection, its QR code and pair code, live', () => {
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

  screenshotOnFailure('whatsapp-web', () => page);

  it('links by QR code or pair code, shows a drop and the reconnection, and carries messages', async () => {
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${BASE_URL}/connections`);
    await page.locator(byTestId('connections-page')).waitFor({ timeout: 20_000 });

    // The dialog proposes WhatsApp when the server also runs the sandbox.
    await page.locator(byTestId('connections-add')).click();
    await page.locator(byTestId('connections-add-whatsapp')).click();
    const modal = page.locator(byTestId('connection-modal'));
    await modal.locator(byTestId('connection-modal-name')).fill(`WhatsApp ${stamp}`);
    await expect.poll(async () => modal.locator(byTestId('connection-modal-provider')).innerText(), { timeout: 20_000 }).toMatch(/WhatsApp \(QR Code/);
    await modal.locator(byTestId('connection-modal-save')).click();
    await modal.waitFor({ state: 'hidden', timeout: 20_000 });
    const created = await eventually(async () => {
      const list = await api<{ id: number; name: string; provider: string }[]>('GET', '/whatsapp?session=0', adminToken);
      return list.find((c) => c.name === `WhatsApp ${stamp}`);
    }, 'the new connection');
    expect(created.provider).toBe('beta');
    const id = created.id;
    await page.locator(byTestId(`connections-row-${id}`)).waitFor({ timeout: 20_000 });
    expect(await page.locator(byTestId(`connections-sandbox-${id}`)).count()).toBe(0);

    // Start it: a session is built; WhatsApp emits a QR code, which the dialog shows.
    await page.locator(byTestId(`connections-retry-${id}`)).click();
    await eventually(() => session(id), 'the session');
    await fake('POST', `/sessions/${id}/qr`, { code: `2@fake-${stamp},key,id` });
    await page.locator(byTestId(`connections-qr-${id}`)).click({ timeout: 20_000 });
    const dialog = page.locator(byTestId('qrcode-dialog'));
    const image = dialog.locator(byTestId('qrcode-image'));
    await image.waitFor({ timeout: 20_000 });
    expect(await image.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);

    // Link with the phone number instead: the running client asks WhatsApp, the code shows.
    await dialog.locator(byTestId('qrcode-link-phone')).click();
    await dialog.locator(byTestId('pair-code-number')).fill(`+${PHONE}`);
    await dialog.locator(byTestId('pair-code-request')).click();
    const shown = dialog.locator(byTestId('pair-code'));
    await shown.waitFor({ timeout: 20_000 });
    expect((await shown.innerText()).replace('-', '')).toBe('FAKE1234');
    expect((await session(id))?.calls).toContain('PairWithCode');
    await expect.poll(() => statusOf(id), { timeout: 20_000 }).toMatch(/Pareando/);

    // The phone links: the dialog closes, the row shows the number, live.
    await fake('POST', `/sessions/${id}/paired`, { number: PHONE });
    await dialog.waitFor({ state: 'hidden', timeout: 20_000 });
    await expect.poll(() => statusOf(id), { timeout: 20_000 }).toMatch(/Conectado/);
    await expect.poll(async () => page.locator(byTestId(`connections-row-${id}`)).innerText(), { timeout: 20_000 }).toContain(PHONE);

    // The socket drops: the row shows it reconnecting; the supervisor builds a fresh session,
    // and once that one is up the row is CONNECTED again, without reload.
    await fake('POST', `/sessions/${id}/drop`);
    await expect.poll(() => statusOf(id), { timeout: 20_000 }).not.toMatch(/^Conectado$/);
    await eventually(async () => ((await session(id))?.sessions ?? 0) >= 2 || undefined, 'the rebuilt session', 30_000);
    await fake('POST', `/sessions/${id}/connect`);
    await expect.poll(() => statusOf(id), { timeout: 20_000 }).toMatch(/Conectado/);

    // A contact writes: a pending ticket; the attendant's answer reaches WhatsApp.
    await fake('POST', `/sessions/${id}/message`, { from: CONTACT, id: `3A${stamp.replace(/\W/g, '').toUpperCase().padEnd(18, '0').slice(0, 18)}`, body: 'Olá, vocês entregam?', name: 'Bia' });
    const ticket = await eventually(async () => {
      const page = await api<{ tickets: { id: number; contact: { number: string } }[] }>('GET', '/tickets?showAll=true&status=pending', adminToken);
      return page.tickets.find((t) => t.contact.number === CONTACT);
    }, 'the contact’s ticket');
    await api('POST', `/messages/${ticket.id}`, adminToken, { body: 'Entregamos sim!', signMessage: false });
    const sent = await eventually(async () => (await session(id))?.sent.find((m) => m.text === 'Entregamos sim!'), 'the answer at WhatsApp');
    expect(sent.to).toBe(`${CONTACT}@s.whatsapp.net`);
  });
});
