/**
 * What the end-to-end files share: the server's address and admin from the environment, the
 * API client, polling, sign-in through the login page, the screen sizes issue 15 checks, a
 * company of its own through the public signup, and the sandbox channel (pair a connection, make
 * a contact write and open its ticket, read what the phone received and the connection's reaction
 * to what it sent).
 */
import { mkdir } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export const BASE_URL = (process.env.CHATFLOW_E2E_BASE_URL ?? '').replace(/\/$/, '');
export const ADMIN_EMAIL = process.env.CHATFLOW_E2E_ADMIN_EMAIL ?? '';
export const ADMIN_PASSWORD = process.env.CHATFLOW_E2E_ADMIN_PASSWORD ?? '';

/** The screens the ticket view must work on: two desktops and a phone (under spec 1's 767 px). */
export const VIEWPORTS = {
  laptop: { width: 1366, height: 768 },
  desktop: { width: 1920, height: 1080 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;
export const VIEWPORT_NAMES = Object.keys(VIEWPORTS) as ViewportName[];

export const byTestId = (id: string) => `[data-testid="${id}"]`;

export async function api<T>(method: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const response = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/**
 * Registers, in the calling `describe`, a screenshot of the page under `test-results/` after
 * each failed test, named `<prefix>-<test name>.png` (the page may be made in `beforeAll`).
 */
export function screenshotOnFailure(prefix: string, page: () => Page | undefined, options: { fullPage?: boolean } = {}): void {
  afterEach(async (context) => {
    const current = page();
    if (context.task.result?.state !== 'fail' || !current) return;
    await mkdir('test-results', { recursive: true });
    const name = [prefix, context.task.name.replace(/\W+/g, '-')].filter(Boolean).join('-');
    await current.screenshot({ path: `test-results/${name}.png`, fullPage: options.fullPage }).catch(() => undefined);
  });
}

/** The bearer token of a sign-in through the API. */
export async function login(email: string, password: string): Promise<string> {
  const answer = await api<{ token: string }>('POST', '/auth/login', null, { email, password });
  return answer.token;
}

/** Polls `check` until it returns a value, or fails after `timeout` ms. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeout = 20_000): Promise<T> {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Signs in through the login page (passing the weak-password notice) and waits for the shell. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${BASE_URL}/login`);
  await page.locator(byTestId('login-email')).fill(email);
  await page.locator(byTestId('login-password')).fill(password);
  await page.locator(byTestId('login-submit')).click();
  const shell = page.locator(byTestId('app-shell'));
  const weak = page.locator(byTestId('weak-password-proceed'));
  await shell.or(weak).first().waitFor({ timeout: 20_000 });
  if (await weak.isVisible()) await weak.click();
  await shell.waitFor({ timeout: 20_000 });
}

/** A unique suffix for names made by one test file's run. */
export function uniqueStamp(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

/** A phone number no other test uses. */
export function uniquePhone(): string {
  return `5511${String(Date.now()).slice(-7)}${Math.floor(Math.random() * 90 + 10)}`;
}

/** What a sandbox phone received from the connection. */
export interface Received {
  to: string;
  externalId: string;
  body: string;
  ack: number;
  deleted: boolean;
  reaction: string;
  content: { type: string; media?: { mediaType: string; fileName: string; mimeType: string; bytes: string } };
}

/**
 * A sandbox connection made through the API and paired (its session started, then "scanned"), so
 * contacts can write at once. `queueIds` are the connection's queues.
 */
export async function pairedSandboxConnection(token: string, name: string, queueIds: number[] = [], extra: Record<string, unknown> = {}): Promise<number> {
  const connection = await api<{ id: number }>('POST', '/whatsapp', token, { name, queueIds, ...extra });
  await eventually(async () => {
    try {
      await api('POST', `/sandbox/${connection.id}/scan`, token, {});
      return true;
    } catch {
      // Not pairing yet: start the session (its QR phase) and try again.
      await api('POST', `/whatsappsession/${connection.id}`, token, {}).catch(() => undefined);
      return undefined;
    }
  }, `connection ${connection.id} to pair`);
  await eventually(async () => {
    const state = await api<{ status: string }>('GET', `/whatsapp/${connection.id}`, token);
    return state.status === 'CONNECTED' ? true : undefined;
  }, `connection ${connection.id} to connect`);
  return connection.id;
}

/** A contact writes to the connection from `phone`; returns the message's external id. */
export async function contactWrites(token: string, connectionId: number, phone: string, name: string, body: string): Promise<string> {
  const sent = await api<{ externalId: string }>('POST', `/sandbox/${connectionId}/send`, token, { from: phone, name, body });
  return sent.externalId;
}

/** What the phone `phone` received from the connection. */
export async function phoneReceived(token: string, connectionId: number, phone: string): Promise<Received[]> {
  return api<Received[]>('GET', `/sandbox/${connectionId}/inbox?to=${phone}`, token);
}

/** Two animation frames later: whatever the page does after a change (layout, a scroll fix) is done. */
export async function afterFrames(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/**
 * The connection's reaction to message `externalId` that a sandbox phone sent, as that phone sees
 * it (`GET /sandbox/{id}/sent/{externalId}`; `""` for none).
 */
export async function phoneSentReaction(token: string, connectionId: number, externalId: string): Promise<string> {
  const sent = await api<{ externalId: string; reaction: string }>('GET', `/sandbox/${connectionId}/sent/${encodeURIComponent(externalId)}`, token);
  return sent.reaction;
}

/** A ticket as the e2e setup reads it. */
export interface TicketBrief {
  id: number;
  uuid: string;
  status: string;
  userId: number | null;
  queueId: number | null;
  lastMessage?: string | null;
  contact: { name: string; number: string };
}

/** A company of its own for one size: its admin (in no queue) and a paired sandbox connection. */
export interface Company {
  adminName: string;
  adminEmail: string;
  adminId: number;
  token: string;
  connectionId: number;
  connectionName: string;
}

/**
 * Registers, in the calling file, that the public signup is on while it runs: the seeded super
 * admin switches `allowSignup` on when it is off, and back off afterwards.
 */
export function allowSignupDuringRun(): void {
  let wasOff = false;
  let superToken = '';
  beforeAll(async () => {
    if (!BASE_URL) throw new Error('CHATFLOW_E2E_BASE_URL is not set');
    superToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const signup = await api<{ value: string }>('GET', '/setting/allowSignup', superToken);
    if (signup.value !== 'enabled') {
      wasOff = true;
      await api('PUT', '/settings/allowSignup', superToken, { value: 'enabled' });
    }
  });
  afterAll(async () => {
    if (wasOff) await api('PUT', '/settings/allowSignup', superToken, { value: 'disabled' });
  });
}

/**
 * A company made through the public signup (`POST /auth/signup`, see [`allowSignupDuringRun`])
 * with a plan allowing a connection and two queues, its admin signed in through the API and a
 * paired sandbox connection. Names carry `label`, `size` and `stamp`; the admin's e-mail is
 * `<email>-<stamp>@e2e.chatflow.test`.
 */
export async function signUpCompany(options: { label: string; email: string; size: ViewportName; stamp: string; password: string }): Promise<Company> {
  const { label, email, size, stamp, password } = options;
  const plans = await api<{ id: number; connections: number; queues: number }[]>('GET', '/plans/list', null);
  const plan = plans.find((p) => p.connections >= 1 && p.queues >= 2);
  if (!plan) throw new Error('no public plan allows a connection and two queues');
  const adminName = `Ana ${size} ${stamp}`;
  const adminEmail = `${email}-${stamp}@e2e.chatflow.test`;
  const created = await api<{ companyId: number; userId: number }>('POST', '/auth/signup', null, {
    companyName: `${label} ${size} ${stamp}`,
    name: adminName,
    email: adminEmail,
    password,
    phone: '11999998888',
    planId: plan.id,
  });
  const token = await login(adminEmail, password);
  const connectionName = `Sandbox ${size} ${stamp}`;
  const connectionId = await pairedSandboxConnection(token, connectionName);
  return { adminName, adminEmail, adminId: created.userId, token, connectionId, connectionName };
}

/** A contact writes from a new phone; its ticket is accepted by the admin (setup, through the API). */
export async function openTicketFromContact(company: Company, contactName: string, body: string): Promise<{ ticket: TicketBrief; phone: string; externalId: string }> {
  const phone = uniquePhone();
  const externalId = await contactWrites(company.token, company.connectionId, phone, contactName, body);
  const pending = await eventually(async () => {
    const page = await api<{ tickets: TicketBrief[] }>('GET', '/tickets?status=pending&showAll=true', company.token);
    return page.tickets.find((t) => t.contact.number === phone);
  }, `the ticket of ${phone}`);
  const ticket = await api<TicketBrief>('PUT', `/tickets/${pending.id}`, company.token, { status: 'open', userId: company.adminId });
  return { ticket, phone, externalId };
}

/** Opens ticket `uuid` in the page and waits until its view and message input are there. */
export async function openTicket(page: Page, uuid: string): Promise<void> {
  await page.goto(`${BASE_URL}/tickets/${uuid}`);
  await page.locator(byTestId('ticket-view')).waitFor({ timeout: 20_000 });
  await page.locator(byTestId('message-input')).waitFor({ timeout: 20_000 });
}

/** What the phone `phone` of `company` received that `test` accepts, once some arrived. */
export async function phoneReceivedWhere(company: Company, phone: string, what: string, test: (m: Received) => boolean): Promise<Received[]> {
  return eventually(async () => {
    const found = (await phoneReceived(company.token, company.connectionId, phone)).filter(test);
    return found.length > 0 ? found : undefined;
  }, `the phone to receive ${what}`);
}

/**
 * Waits until `locator` has finished its entrance (a dialog's fade, a drawer's slide): neither it
 * nor any element around it is moved (`transform`) or faded (`opacity`) any more.
 */
export async function untilSettled(locator: Locator): Promise<void> {
  await locator.waitFor();
  await expect
    .poll(async () =>
      locator.evaluate((element) => {
        for (let el: Element | null = element; el; el = el.parentElement) {
          const style = getComputedStyle(el);
          if (style.transform !== 'none' || style.opacity !== '1') return false;
        }
        return true;
      }),
    )
    .toBe(true);
}
