/**
 * The inbox journey against a real server with the sandbox channel (spec 1 "Tickets inbox" and
 * "Ticket view", issue 3):
 * the admin starts a sandbox connection from /connections and pairs it through the QR dialog →
 * a simulated contact writes → the ticket appears in Pending for the admin and an attendant at
 * once, without reload → the attendant accepts it (choosing a queue) and it leaves the admin's
 * Pending → the attendant replies with text and an image → the simulated phone receives both and
 * their acks reach 3 → the attendant records a voice note (Chromium's fake microphone), which
 * the phone receives as an MP3 → the attendant transfers it to another queue, takes it back and
 * resolves it with the farewell, which the phone receives too.
 * Then the admin imports contacts from a real xlsx file made here, and from the sandbox phone:
 * a chat whose message the network lost (so no contact was made of it) becomes a contact through
 * "Import from phone".
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, api, byTestId, eventually, login, phoneReceived as phoneReceivedBy, signIn, type Received } from './support';

const stamp = Date.now().toString(36);
const ATTENDANT = {
  name: `Atendente Inbox ${stamp}`,
  email: `inbox-${stamp}@e2e.chatflow.test`,
  password: 'Inbox@2024x',
};
const PHONE = `5511${String(Date.now()).slice(-9)}`;
const CONTACT_NAME = `Maria ${stamp}`;
const FAREWELL = `Obrigado pelo contato ${stamp}!`;

/** A valid 1×1 PNG. */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let browser: Browser;
let secondBrowser: Browser | undefined;
let admin: Page;
let attendant: Page;
let adminToken: string;
let connectionId: number;

async function openPending(page: Page): Promise<void> {
  await page.goto(`${BASE_URL}/tickets`);
  await page.locator(byTestId('tickets-tab-pending')).click();
  await page.locator(byTestId('tickets-list-pending')).waitFor({ timeout: 20_000 });
}

function pendingItem(page: Page) {
  // The item itself (its parts have test ids starting the same way), by the contact's name.
  return page.locator(`${byTestId('tickets-list-pending')} [data-testid^="ticket-item-"]:has(${byTestId('ticket-item-name')})`, {
    hasText: CONTACT_NAME,
  });
}

async function chooseOption(page: Page, dialog: string, index: number, option: string): Promise<void> {
  await page.locator(`${byTestId(dialog)} [role="combobox"]`).nth(index).click();
  await page.locator('li[role="option"]', { hasText: option }).click();
}

async function phoneReceived(): Promise<Received[]> {
  return phoneReceivedBy(adminToken, connectionId, PHONE);
}

describe('the inbox with the sandbox channel', () => {
  beforeAll(async () => {
    expect(BASE_URL, 'CHATFLOW_E2E_BASE_URL').not.toBe('');
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const sales = await api<{ id: number }>('POST', '/queue', adminToken, { name: `Vendas ${stamp}`, color: `#a${stamp.slice(-5)}`, greetingMessage: 'Olá! Escolha uma fila.' });
    const support = await api<{ id: number }>('POST', '/queue', adminToken, { name: `Suporte ${stamp}`, color: `#b${stamp.slice(-5)}`, greetingMessage: 'Olá! Escolha uma fila.' });
    await api('POST', '/users', adminToken, {
      name: ATTENDANT.name,
      email: ATTENDANT.email,
      password: ATTENDANT.password,
      profile: 'user',
      queueIds: [sales.id, support.id],
      allTicket: 'enable',
    });
    const connection = await api<{ id: number }>('POST', '/whatsapp', adminToken, {
      name: `Sandbox ${stamp}`,
      complationMessage: FAREWELL,
      queueIds: [sales.id, support.id],
    });
    connectionId = connection.id;
    browser = await launchBrowser();
    admin = await browser.context.newPage();
    // A second profile: the attendant's session must not share the admin's storage.
    secondBrowser = await launchBrowser();
    attendant = await secondBrowser.context.newPage();
  });

  afterAll(async () => {
    await secondBrowser?.close();
    await browser?.close();
  });

  it('pairs the sandbox connection through the QR dialog', async () => {
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.goto(`${BASE_URL}/connections`);
    await admin.locator(byTestId(`connections-row-${connectionId}`)).waitFor({ timeout: 20_000 });
    const qr = admin.locator(byTestId(`connections-qr-${connectionId}`));
    if (!(await qr.isVisible())) {
      await admin.locator(byTestId(`connections-retry-${connectionId}`)).click();
    }
    await qr.click({ timeout: 20_000 });
    const image = admin.locator(byTestId('qrcode-image'));
    await image.waitFor({ timeout: 20_000 });
    expect(await image.getAttribute('src')).toMatch(/^data:image\//);
    await api('POST', `/sandbox/${connectionId}/scan`, adminToken, {});
    await admin.locator(byTestId('qrcode-dialog')).waitFor({ state: 'hidden', timeout: 20_000 });
    await expect
      .poll(async () => admin.locator(byTestId(`connections-status-${connectionId}`)).innerText(), { timeout: 20_000 })
      .toMatch(/CONNECTED|Conectad/i);
  });

  it('shows a new conversation in Pending for two users at once, and the accept to both', async () => {
    await signIn(attendant, ATTENDANT.email, ATTENDANT.password);
    await openPending(admin);
    await openPending(attendant);
    await api('POST', `/sandbox/${connectionId}/send`, adminToken, { from: PHONE, name: CONTACT_NAME, body: 'Olá, preciso de ajuda' });
    await pendingItem(admin).waitFor({ timeout: 20_000 });
    await pendingItem(attendant).waitFor({ timeout: 20_000 });
    // The connection has two queues: the bot sends the queue menu, which the phone gets and the
    // item shows as its last message.
    await expect.poll(async () => pendingItem(attendant).innerText()).toContain(`Vendas ${stamp}`);
    await expect.poll(async () => (await phoneReceived()).map((m) => m.body).join('\n')).toContain(`Suporte ${stamp}`);

    await pendingItem(attendant).locator('[data-testid^="ticket-accept-"]').click();
    // The ticket has no queue yet: the queue chooser comes first.
    await attendant.locator(byTestId('transfer-dialog')).waitFor();
    await chooseOption(attendant, 'transfer-dialog', 0, `Vendas ${stamp}`);
    await attendant.locator(byTestId('transfer-submit')).click();
    await attendant.locator(byTestId('ticket-view')).waitFor({ timeout: 20_000 });
    await expect.poll(async () => attendant.locator(byTestId('ticket-view')).innerText(), { timeout: 20_000 }).toContain('Olá, preciso de ajuda');
    await pendingItem(admin).waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('replies with text and an image that reach the phone with acks', async () => {
    await attendant.locator(byTestId('message-input')).fill('Olá! Em que posso ajudar?');
    await attendant.locator(byTestId('message-send')).click();
    const dir = join(tmpdir(), `chatflow-e2e-${stamp}`);
    await mkdir(dir, { recursive: true });
    const png = join(dir, 'foto.png');
    await writeFile(png, TINY_PNG);
    await attendant.locator(byTestId('input-file')).setInputFiles(png);
    await attendant.locator(byTestId('media-preview')).waitFor();
    await attendant.locator(byTestId('media-send')).click();

    const received = await eventually(async () => {
      const all = await phoneReceived();
      const text = all.find((m) => m.body.includes('Em que posso ajudar'));
      const image = all.find((m) => m.content.type === 'media');
      return text && image && text.ack >= 3 && image.ack >= 3 ? { text, image } : undefined;
    }, 'the phone to read both replies');
    expect(received.text.ack).toBe(3);
    await attendant.locator('[data-testid^="message-image-"]').first().waitFor({ timeout: 20_000 });
    await rm(dir, { recursive: true, force: true });
  });

  it('records a voice note with the fake microphone and the phone receives it as MP3', async () => {
    await attendant.locator(byTestId('audio-record')).click();
    await attendant.locator(byTestId('audio-timer')).waitFor();
    // Long enough to pass the 10000-byte minimum at 128 kbps.
    await attendant.waitForTimeout(2500);
    expect(await attendant.locator(byTestId('audio-timer')).textContent()).toMatch(/^00:0[2-9]$/);
    await attendant.locator(byTestId('audio-send')).click();
    const audio = await eventually(async () => (await phoneReceived()).find((m) => m.content.media?.mimeType === 'audio/mpeg' || /\.mp3$/.test(m.content.media?.fileName ?? '')), 'the phone to receive the voice note');
    expect(audio.content.media?.fileName).toMatch(/^audio-\d+\.mp3$/);
    expect(audio.content.media?.mimeType).toBe('audio/mpeg');
    const bytes = Buffer.from(audio.content.media?.bytes ?? '', 'base64');
    expect(bytes.length).toBeGreaterThanOrEqual(10_000);
    expect(bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0)).toBe(true);
    await attendant.locator('[data-testid^="message-audio-"]').first().waitFor({ timeout: 20_000 });
    await attendant.locator(byTestId('audio-record')).waitFor();
  });

  it('transfers to another queue and resolves with the farewell', async () => {
    await attendant.locator(byTestId('ticket-header-transfer')).click();
    await attendant.locator(byTestId('transfer-dialog')).waitFor();
    await chooseOption(attendant, 'transfer-dialog', 0, `Suporte ${stamp}`);
    await chooseOption(attendant, 'transfer-dialog', 1, ATTENDANT.name);
    await attendant.locator(byTestId('transfer-submit')).click();
    await expect
      .poll(async () => attendant.locator(byTestId('ticket-view')).innerText(), { timeout: 20_000 })
      .toContain(`Suporte ${stamp}`);

    await attendant.locator(byTestId('ticket-header-resolve')).click();
    await attendant.locator(byTestId('resolve-with-farewell')).click();
    await eventually(async () => {
      const all = await phoneReceived();
      return all.find((m) => m.body.includes(FAREWELL));
    }, 'the farewell on the phone');
  });

  it('imports contacts from an xlsx file', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Contatos');
    sheet.addRow(['Nome', 'Telefone', 'Email']);
    sheet.addRow([`João ${stamp}`, '5511988887777', `joao-${stamp}@e2e.test`]);
    sheet.addRow([`Ana ${stamp}`, '5511977776666', '']);
    sheet.addRow(['', '5511966665555', '']);
    const dir = join(tmpdir(), `chatflow-e2e-xlsx-${stamp}`);
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'contatos.xlsx');
    await workbook.xlsx.writeFile(file);

    await admin.goto(`${BASE_URL}/contacts/import`);
    await admin.locator(byTestId('contacts-import-file')).setInputFiles(file);
    const importButton = admin.locator(byTestId('contacts-import-submit'));
    await importButton.waitFor({ timeout: 20_000 });
    await importButton.click();
    await admin.locator(byTestId('contacts-import-result')).waitFor({ timeout: 20_000 });
    expect(await admin.locator(byTestId('contacts-import-imported')).innerText()).toMatch(/\b2\b/);
    expect(await admin.locator(byTestId('contacts-import-ignored')).innerText()).toMatch(/\b1\b/);
    await admin.goto(`${BASE_URL}/contacts`);
    await admin.getByText(`João ${stamp}`).waitFor({ timeout: 20_000 });
    await rm(dir, { recursive: true, force: true });
  });

  it('imports the contacts of the sandbox phone from the contacts page', async () => {
    // A lost message stays in the phone's chat list but never reaches the inbox: no contact yet.
    const lostPhone = `5521${String(Date.now()).slice(-9)}`;
    const lostName = `Pedro ${stamp}`;
    await api('POST', `/sandbox/${connectionId}/send`, adminToken, { from: lostPhone, name: lostName, body: 'Oi', lost: true });
    await admin.goto(`${BASE_URL}/contacts`);
    await admin.locator(byTestId('contacts-import-export')).click();
    await admin.locator(byTestId('contacts-import-phone')).click();
    await admin.locator(byTestId('contacts-phone-import')).waitFor({ timeout: 20_000 });
    await chooseOption(admin, 'contacts-phone-import', 0, `Sandbox ${stamp}`);
    await admin.locator(byTestId('contacts-phone-import-submit')).click();
    const report = admin.locator(byTestId('contacts-phone-import-report'));
    await report.waitFor({ timeout: 30_000 });
    // The chat of the inbox journey's contact is there already; the lost one is new.
    expect(await report.innerText()).toMatch(/importados: 1\b/);
    await admin.locator(byTestId('contacts-phone-import-close')).click();
    await admin.locator(byTestId('contacts-search')).fill(lostName);
    await admin.getByText(lostName).waitFor({ timeout: 20_000 });
  });
});
