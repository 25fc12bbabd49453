/**
 * The foundation journey against a real server serving the built app (web/dist):
 * super admin signs in → sees Users and Settings → creates an attendant → uploads their own
 * avatar in the profile dialog (shown in the top bar, also after a reload) → signs out → the
 * attendant signs in → no Users/Settings, /users is the 403 page → a spec page not built yet
 * says so, an unknown address is the 404 page → English and dark theme → signs out → signs in
 * again, and a sign-in of the same user elsewhere ends this session with the login page saying why.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, byTestId, login, screenshotOnFailure, signIn as signInOn } from './support';

const stamp = Date.now().toString(36);
const ATTENDANT = {
  name: `Atendente ${stamp}`,
  email: `atendente-${stamp}@e2e.chatflow.test`,
  password: 'Attend@2024x',
};

/** A valid 1×1 PNG. */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** The src of the top bar avatar's picture once it is an object URL. */
async function topBarAvatarSrc(): Promise<string | null> {
  const image = page.locator(`${byTestId('user-menu-button')} img`);
  await page.waitForFunction(
    (selector) => document.querySelector(selector)?.getAttribute('src')?.startsWith('blob:') === true,
    `${byTestId('user-menu-button')} img`,
    { timeout: 20_000 },
  );
  return image.getAttribute('src');
}

let browser: Browser;
let page: Page;

/** Signs in through the login page (a weak password asks first, spec 2 §5: proceed). */
async function signIn(email: string, password: string): Promise<void> {
  await signInOn(page, email, password);
}

async function signOut(): Promise<void> {
  await page.locator(byTestId('user-menu-button')).click();
  await page.locator(byTestId('menu-logout')).click();
  await page.waitForURL(/\/login$/, { timeout: 20_000 });
  await page.locator(byTestId('login-page')).waitFor();
}

describe('foundation journey', () => {
  beforeAll(async () => {
    if (!BASE_URL || !ADMIN_EMAIL || !ADMIN_PASSWORD) {
      throw new Error('set CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL and CHATFLOW_E2E_ADMIN_PASSWORD');
    }
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('[page error]', error.message));
  });

  screenshotOnFailure('', () => page, { fullPage: true });

  afterAll(async () => {
    await browser?.close();
  });

  it('the super admin signs in and sees Users and Settings in the menu', async () => {
    await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    await expect(page.locator(byTestId('menu-users')).isVisible()).resolves.toBe(true);
    await expect(page.locator(byTestId('menu-settings')).isVisible()).resolves.toBe(true);
    // Signing in lands on the inbox (spec 1 §4); the Users entry opens the users page.
    await page.waitForURL((url) => url.pathname.startsWith('/tickets'));
    await page.locator(byTestId('menu-users')).click();
    await page.locator(byTestId('users-page')).waitFor();
    expect(new URL(page.url()).pathname).toBe('/users');
  });

  it('the settings page opens on the Options tab', async () => {
    await page.locator(byTestId('menu-settings')).click();
    await page.locator(byTestId('settings-options')).waitFor();
    await page.locator(byTestId('settings-section-general')).waitFor();
    await page.locator(byTestId('menu-users')).click();
    await page.locator(byTestId('users-page')).waitFor();
  });

  it('creates an attendant (profile user) on /users', async () => {
    await page.locator(byTestId('users-add')).click();
    const modal = page.locator(byTestId('user-modal'));
    await modal.waitFor();
    await modal.locator(byTestId('user-modal-name')).fill(ATTENDANT.name);
    await modal.locator(byTestId('user-modal-email')).fill(ATTENDANT.email);
    await modal.locator(byTestId('user-modal-password')).fill(ATTENDANT.password);
    await expect(modal.locator(byTestId('user-modal-profile')).textContent()).resolves.toMatch(/Usuário|User/);
    await modal.locator(byTestId('user-modal-save')).click();
    await modal.waitFor({ state: 'detached', timeout: 20_000 });
    await page.locator(`${byTestId('users-table')} tr[data-email="${ATTENDANT.email}"]`).waitFor({ timeout: 20_000 });
  });

  it('the admin uploads their own avatar in the profile dialog and sees it in the top bar', async () => {
    await page.locator(byTestId('user-menu-button')).click();
    await page.locator(byTestId('menu-profile')).click();
    const dialog = page.locator(byTestId('profile-dialog'));
    await dialog.waitFor();
    const uploaded = page.waitForResponse((response) => /\/users\/\d+\/media-upload$/.test(response.url()) && response.request().method() === 'POST');
    await dialog.locator(byTestId('profile-avatar-input')).setInputFiles({ name: 'avatar.png', mimeType: 'image/png', buffer: TINY_PNG });
    const response = await uploaded;
    expect(response.status()).toBe(200);
    const body = (await response.json()) as { profileImage?: unknown };
    expect(typeof body.profileImage).toBe('string');
    expect(await topBarAvatarSrc()).toMatch(/^blob:/);
    await expect(dialog.locator(`${byTestId('profile-avatar-avatar')} img`).getAttribute('src')).resolves.toMatch(/^blob:/);
    await dialog.locator(byTestId('profile-cancel')).click();
    await dialog.waitFor({ state: 'detached' });

    // After a reload the picture comes from GET /users/{id}/avatar, with the token.
    const fetched = page.waitForResponse((r) => /\/users\/\d+\/avatar$/.test(r.url()));
    await page.reload();
    await page.locator(byTestId('app-shell')).waitFor({ timeout: 20_000 });
    const avatar = await fetched;
    expect(avatar.status()).toBe(200);
    expect(avatar.headers()['content-type']).toBe('image/png');
    expect(await topBarAvatarSrc()).toMatch(/^blob:/);
  });

  it('signs out', async () => {
    await signOut();
  });

  it('the attendant has neither Users nor Settings, and /users is the 403 page', async () => {
    await signIn(ATTENDANT.email, ATTENDANT.password);
    await page.locator(byTestId('side-menu')).waitFor();
    await expect(page.locator(byTestId('menu-users')).count()).resolves.toBe(0);
    await expect(page.locator(byTestId('menu-settings')).count()).resolves.toBe(0);
    await page.goto(`${BASE_URL}/users`);
    await page.locator(byTestId('forbidden-page')).waitFor({ timeout: 20_000 });
    await expect(page.locator(byTestId('forbidden-title')).textContent()).resolves.toBe('Oops! Acesso Negado!');
  });

  it('shows "not available yet" at a spec page not built yet, and the 404 page at an unknown address', async () => {
    await page.goto(`${BASE_URL}/campaigns`);
    await page.locator(byTestId('not-available-page')).waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname, 'the address is kept').toBe('/campaigns');
    await page.goto(`${BASE_URL}/no-such-page-${stamp}`);
    await page.locator(byTestId('not-found-page')).waitFor({ timeout: 20_000 });
    await page.locator(byTestId('not-found-home')).click();
    await page.locator(byTestId('not-found-page')).waitFor({ state: 'detached' });
    await page.goto(`${BASE_URL}/users`);
    await page.locator(byTestId('forbidden-page')).waitFor({ timeout: 20_000 });
  });

  it('switches the language to English and the theme to dark', async () => {
    await page.locator(byTestId('language-switcher')).click();
    await page.locator(byTestId('language-option-en')).click();
    await page.locator(byTestId('forbidden-title')).filter({ hasText: 'Oops! Access Denied!' }).waitFor();
    await expect(page.locator(byTestId('topbar-greeting')).textContent()).resolves.toMatch(/^Hello /);

    const html = page.locator('html');
    expect(await html.getAttribute('data-theme')).toBe('light');
    await page.locator(byTestId('theme-toggle')).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = (background.match(/\d+/g) ?? ['255', '255', '255']).map(Number);
    expect(r + g + b).toBeLessThan(3 * 80);
  });

  it('signs out back to /login', async () => {
    await signOut();
    await expect(page.locator(byTestId('login-submit')).textContent()).resolves.toBe('Sign in');
  });

  it('ends this session when the same user signs in elsewhere, and the login page says why', async () => {
    await signIn(ATTENDANT.email, ATTENDANT.password);
    await page.locator(byTestId('side-menu')).waitFor();
    // The same user signs in on another device (here: through the API).
    await login(ATTENDANT.email, ATTENDANT.password);
    await page.waitForURL(/\/login$/, { timeout: 20_000 });
    const notice = page.locator(byTestId('login-signed-out-notice'));
    await notice.waitFor({ timeout: 20_000 });
    expect(await notice.innerText()).toMatch(/outro dispositivo ou navegador|another device or browser/);
  });
});
