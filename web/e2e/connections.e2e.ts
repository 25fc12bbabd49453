/**
 * Linking a connection by phone number against a real server with the sandbox channel (issue 17,
 * spec 2 "Connection status display"): the admin starts a sandbox connection from /connections,
 * opens the pairing dialog, chooses "link with phone number instead", asks for a code for a
 * number → the code appears big as XXXX-XXXX, live → a simulated phone types a wrong code (refused)
 * and then the code read from the page → the dialog closes and the row shows CONNECTED with that
 * number, without reload.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, api, byTestId, login, screenshotOnFailure, signIn, uniquePhone, uniqueStamp } from './support';

const stamp = uniqueStamp();
const PHONE = uniquePhone();

let browser: Browser;
let page: Page;
let adminToken: string;
let connectionId: number;

describe('linking a sandbox connection by pair code', () => {
  beforeAll(async () => {
    expect(BASE_URL, 'CHATFLOW_E2E_BASE_URL').not.toBe('');
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    connectionId = (await api<{ id: number }>('POST', '/whatsapp', adminToken, { name: `Código ${stamp}` })).id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
  });

  screenshotOnFailure('connections', () => page);

  it('shows the code asked for and connects when the phone types it', async () => {
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${BASE_URL}/connections`);
    await page.locator(byTestId(`connections-row-${connectionId}`)).waitFor({ timeout: 20_000 });
    // Start the session from the page; its QR code comes first.
    await page.locator(byTestId(`connections-retry-${connectionId}`)).click();
    await page.locator(byTestId(`connections-qr-${connectionId}`)).click({ timeout: 20_000 });
    const dialog = page.locator(byTestId('qrcode-dialog'));
    await dialog.locator(byTestId('qrcode-image')).waitFor({ timeout: 20_000 });

    await dialog.locator(byTestId('qrcode-link-phone')).click();
    await dialog.locator(byTestId('pair-code-number')).fill(`+${PHONE.slice(0, 2)} ${PHONE.slice(2, 4)} ${PHONE.slice(4)}`);
    await dialog.locator(byTestId('pair-code-request')).click();
    const shown = dialog.locator(byTestId('pair-code'));
    await shown.waitFor({ timeout: 20_000 });
    const code = (await shown.innerText()).trim();
    expect(code).toMatch(/^[1-9A-HJ-NP-TV-Z]{4}-[1-9A-HJ-NP-TV-Z]{4}$/);
    expect(await dialog.innerText()).toMatch(/Aparelhos conectados > Conectar um aparelho > Conectar com número de telefone/);
    await expect
      .poll(async () => page.locator(byTestId(`connections-status-${connectionId}`)).innerText(), { timeout: 20_000 })
      .toMatch(/Pareando/);

    // The phone types a wrong code first: refused, the dialog stays on the code.
    const wrong = code.startsWith('Z') ? 'YYYY-YYYY' : 'ZZZZ-ZZZZ';
    await expect(api('POST', `/sandbox/${connectionId}/paircode`, adminToken, { code: wrong })).rejects.toThrow(/422.*ERR_VALIDATION/);
    expect(await shown.innerText()).toBe(code);

    // Then the code read from the page: the connection connects with the number, live.
    await api('POST', `/sandbox/${connectionId}/paircode`, adminToken, { code });
    await dialog.waitFor({ state: 'hidden', timeout: 20_000 });
    await expect
      .poll(async () => page.locator(byTestId(`connections-status-${connectionId}`)).innerText(), { timeout: 20_000 })
      .toMatch(/Conectado/);
    await expect
      .poll(async () => page.locator(byTestId(`connections-row-${connectionId}`)).innerText(), { timeout: 20_000 })
      .toContain(PHONE);
    const stored = await api<{ status: string; number: string; pairingCode: string | null }>('GET', `/whatsapp/${connectionId}`, adminToken);
    expect(stored).toMatchObject({ status: 'CONNECTED', number: PHONE, pairingCode: null });
  });
});
