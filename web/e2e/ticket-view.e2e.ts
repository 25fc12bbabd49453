/**
 * The ticket view as attendants use it all day (issue 15, defects 1, 2 and 4), at the three
 * sizes of `VIEWPORTS` (1366×768, 1920×1080 and a 390×844 phone):
 * a ticket with 60 messages fits the window (the conversation scrolls in its own pane, the input
 * and the newest message are in view, the page does not grow); older pages load at the top
 * without moving what the reader sees; a message arriving while the reader is scrolled up shows
 * the "new messages" marker without moving the view, the jump button brings the newest one, and
 * one arriving at the bottom is followed; the contact's name in the header is visible, not
 * covered, and opens the contact drawer; the header's overflow menu holds the actions that do
 * not fit; on the phone nothing scrolls sideways (the list, the ticket, the drawer, the dialogs)
 * and the dialogs are centred and fit the screen.
 *
 * With CHATFLOW_E2E_SCREENSHOTS set to a directory, the ticket view is saved there at each size
 * in the light and dark themes (ticket-view-<w>x<h>-<theme>.png).
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  BASE_URL,
  VIEWPORT_NAMES,
  VIEWPORTS,
  api,
  byTestId,
  contactWrites,
  eventually,
  pairedSandboxConnection,
  signIn,
  uniquePhone,
  uniqueStamp,
  type ViewportName,
  screenshotOnFailure,
  afterFrames,
  openTicket,
  untilSettled,
} from './support';

const SCREENSHOTS = process.env.CHATFLOW_E2E_SCREENSHOTS ?? '';
const stamp = uniqueStamp();
const MESSAGES = 60;

/** A plausible support conversation, repeated to make the 60 messages. */
const CONTACT_LINES = [
  'Olá, boa tarde! Fiz um pedido na semana passada e ainda não recebi.',
  'O número do pedido é 48213.',
  'Paguei no cartão, parcelado em 3 vezes.',
  'Consegue ver se já foi enviado?',
  'A entrega era para ontem 😕',
  'Perfeito, obrigado pela atenção!',
  'Vou aguardar então.',
  'Só mais uma dúvida: posso trocar o tamanho depois de receber?',
];
const ATTENDANT_LINES = [
  'Boa tarde! Vou verificar para você, só um momento.',
  'Encontrei: o pedido saiu do centro de distribuição hoje de manhã.',
  'O código de rastreio chega por e-mail em até 2 horas.',
  'Pode sim, a troca é gratuita em até 30 dias.',
  'Mais alguma coisa em que eu possa ajudar?',
];

interface Conversation {
  ticketId: number;
  uuid: string;
  phone: string;
  name: string;
  connectionId: number;
}

let token: string;
let adminId: number;
let connectionId: number;
let queueId: number;

interface TicketLite {
  id: number;
  uuid: string;
  lastMessage?: string | null;
  contact: { number: string };
}

async function ticketOf(phone: string): Promise<TicketLite> {
  return eventually(async () => {
    const page = await api<{ tickets: TicketLite[] }>('GET', `/tickets?status=pending&showAll=true&searchParam=${phone}`, token);
    return page.tickets.find((t) => t.contact.number === phone);
  }, `the ticket of ${phone}`);
}

async function lastMessageIs(ticketId: number, body: string): Promise<void> {
  await eventually(async () => {
    const ticket = await api<TicketLite>('GET', `/tickets/${ticketId}`, token);
    return ticket.lastMessage === body ? true : undefined;
  }, `"${body}" to be the last message of ticket ${ticketId}`);
}

/**
 * A contact writes, the admin accepts the ticket and the two talk until the ticket has `count`
 * messages (two from the contact, one answer, in that order); the last one is the contact's
 * `last`.
 */
async function conversation(name: string, count: number, last: string): Promise<Conversation> {
  const phone = uniquePhone();
  await contactWrites(token, connectionId, phone, name, CONTACT_LINES[0]);
  const ticket = await ticketOf(phone);
  await api('PUT', `/tickets/${ticket.id}`, token, { status: 'open', userId: adminId, queueId });
  for (let i = 1; i < count; i += 1) {
    const body = i === count - 1 ? last : i % 3 === 2 ? ATTENDANT_LINES[Math.floor(i / 3) % ATTENDANT_LINES.length] : CONTACT_LINES[i % CONTACT_LINES.length];
    if (i === count - 1 || i % 3 !== 2) {
      await contactWrites(token, connectionId, phone, name, body);
    } else {
      // The contact's messages are stored asynchronously: the answer waits for them, to keep the order.
      await lastMessageIs(ticket.id, CONTACT_LINES[(i - 1) % CONTACT_LINES.length]);
      await api('POST', `/messages/${ticket.id}`, token, { body, signMessage: false });
    }
  }
  await lastMessageIs(ticket.id, last);
  return { ticketId: ticket.id, uuid: ticket.uuid, phone, name, connectionId };
}

/** The page's scroll sizes: the document must never grow past the window or sideways. */
function pageScroll(page: Page) {
  return page.evaluate(() => {
    const element = document.scrollingElement ?? document.documentElement;
    return { scrollHeight: element.scrollHeight, scrollWidth: element.scrollWidth, clientWidth: element.clientWidth, innerHeight: window.innerHeight, innerWidth: window.innerWidth };
  });
}

async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const sizes = await pageScroll(page);
  expect(sizes.scrollWidth, `${where}: the page scrolls sideways`).toBeLessThanOrEqual(sizes.clientWidth);
}

/** Whether the element lies entirely inside the window. */
async function inWindow(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  if (!box) return false;
  const { innerWidth, innerHeight } = await locator.page().evaluate(() => ({ innerWidth: window.innerWidth, innerHeight: window.innerHeight }));
  return box.y >= 0 && box.y + box.height <= innerHeight + 0.5 && box.x >= 0 && box.x + box.width <= innerWidth + 0.5;
}

function list(page: Page): Locator {
  return page.locator(byTestId('messages-list'));
}

/** Every message bubble loaded in the list. */
function bubbles(page: Page): Locator {
  return page.locator(`${byTestId('messages-list')} [data-private]`);
}

function bubbleWith(page: Page, text: string): Locator {
  return page.locator(`${byTestId('messages-list')} [data-private]`, { hasText: text });
}

/** The top of a message bubble on screen, by its test id. */
async function topOf(page: Page, testId: string): Promise<number> {
  const box = await page.locator(byTestId(testId)).boundingBox();
  if (!box) throw new Error(`${testId} is not on screen`);
  return box.y;
}

/** The test ids of the header's actions: those shown and those in its overflow menu. */
async function headerActions(page: Page): Promise<{ inline: string[]; overflow: string[] }> {
  const header = page.locator(byTestId('ticket-header-actions'));
  const inline = await header.locator('[data-testid^="ticket-header-"]').evaluateAll((elements) =>
    elements.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => e.getAttribute('data-testid') ?? ''),
  );
  const more = page.locator(byTestId('ticket-header-more'));
  let overflow: string[] = [];
  if (await more.isVisible()) {
    await more.click();
    const menu = page.locator(byTestId('ticket-header-menu'));
    await menu.waitFor();
    overflow = await menu.locator('[role="menuitem"]').evaluateAll((items) => items.map((e) => e.getAttribute('data-testid') ?? ''));
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
  }
  return { inline: inline.filter((id) => id !== 'ticket-header-more'), overflow };
}

/** Runs a header action, through the overflow menu when it is not shown in the header. */
async function headerAction(page: Page, action: string): Promise<void> {
  const button = page.locator(`${byTestId('ticket-header-actions')} ${byTestId(`ticket-header-${action}`)}`);
  if (await button.isVisible()) {
    await button.click();
    return;
  }
  await page.locator(byTestId('ticket-header-more')).click();
  await page.locator(`${byTestId('ticket-header-menu')} ${byTestId(`ticket-header-${action}`)}`).click();
}

/** A dialog's paper is inside the window and horizontally centred (±2 px); then Escape closes it. */
async function expectCentredDialogAndClose(page: Page, testId: string): Promise<void> {
  const paper = page.locator(`${byTestId(testId)} .MuiDialog-paper`);
  await untilSettled(paper);
  const box = await paper.boundingBox();
  const innerWidth = await page.evaluate(() => window.innerWidth);
  expect(box, testId).not.toBeNull();
  if (!box) return;
  expect(box.x, `${testId} left edge`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${testId} right edge`).toBeLessThanOrEqual(innerWidth + 0.5);
  expect(Math.abs(box.x - (innerWidth - box.x - box.width)), `${testId} is off-centre`).toBeLessThanOrEqual(2);
  expect(await inWindow(paper), `${testId} fits the window`).toBe(true);
  await expectNoSidewaysScroll(page, testId);
  await page.keyboard.press('Escape');
  await page.locator(byTestId(testId)).waitFor({ state: 'hidden' });
}

async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  const toggle = page.locator(byTestId('theme-toggle'));
  if ((await toggle.getAttribute('data-mode')) !== theme) await toggle.click();
  await expect.poll(() => toggle.getAttribute('data-mode')).toBe(theme);
}

beforeAll(async () => {
  expect(BASE_URL, 'CHATFLOW_E2E_BASE_URL').not.toBe('');
  const session = await api<{ token: string; user: { id: number } }>('POST', '/auth/login', null, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  token = session.token;
  adminId = session.user.id;
  // The tickets' queue (the header shows it; the transfer dialog offers it), by a plain name
  // when the server has none of that name yet (the screenshots show it).
  const queues = await api<{ id: number; name: string }[]>('GET', '/queue', token);
  const taken = queues.some((q) => q.name === 'Suporte');
  // Colours are unique per company: a fixed one for the first, a random one after.
  const colour = taken ? `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}` : '#6a1b9a';
  queueId = (await api<{ id: number }>('POST', '/queue', token, { name: taken ? `Suporte ${stamp}` : 'Suporte', color: colour, greetingMessage: 'Olá!' })).id;
  const connections = await api<{ name: string }[]>('GET', '/whatsapp', token);
  connectionId = await pairedSandboxConnection(token, connections.some((c) => c.name === 'Loja') ? `Loja ${stamp}` : 'Loja');
});

/** A contact per size (each its own phone and ticket). */
const CONTACTS: Record<ViewportName, string> = { laptop: 'Mariana Albuquerque', desktop: 'Rafael Nogueira', phone: 'Camila Duarte' };
/** Unique within a ticket: the newest message, and those the tests make arrive or send. */
const LAST = 'Combinado, vou ficar de olho no e-mail.';
const ARRIVING = 'Acabei de receber o código de rastreio!';
const FOLLOWING = 'Obrigada pela ajuda!';
const ANSWER = 'Por nada! Qualquer dúvida é só chamar.';

describe.each(VIEWPORT_NAMES)('the ticket view at the %s size', (size: ViewportName) => {
  const viewport = VIEWPORTS[size];
  const phone = size === 'phone';
  const contactName = CONTACTS[size];
  let browser: Browser;
  let page: Page;
  let chat: Conversation;

  async function openChat(): Promise<void> {
    await openTicket(page, chat.uuid);
    await bubbleWith(page, LAST).waitFor({ timeout: 20_000 });
  }

  beforeAll(async () => {
    chat = await conversation(contactName, MESSAGES, LAST);
    browser = await launchBrowser({ viewport, mobile: phone });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => console.error('[page error]', error.message));
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  screenshotOnFailure(`ticket-view-${size}`, () => page);

  afterAll(async () => {
    await browser?.close();
  });

  it('opens at the newest message with the input in view, and the page does not grow', async () => {
    await openChat();
    const input = page.locator(byTestId('message-input'));
    const newest = bubbleWith(page, LAST);
    await expect.poll(() => inWindow(newest), { timeout: 10_000 }).toBe(true);
    expect(await inWindow(input), 'the input is in the window').toBe(true);
    const inputBox = await input.boundingBox();
    // A usable input, not squeezed by its buttons (it was 6 px wide on the phone).
    expect(inputBox?.width ?? 0).toBeGreaterThanOrEqual(phone ? 150 : 200);
    const sizes = await pageScroll(page);
    expect(sizes.scrollHeight, 'the page grew past the window').toBeLessThanOrEqual(sizes.innerHeight);
    await expectNoSidewaysScroll(page, 'the ticket');
  });

  it('loads older pages at the top without moving the message the reader sees', async () => {
    for (let round = 0; round < 4; round += 1) {
      const before = await bubbles(page).count();
      if (before >= MESSAGES) break;
      // The list at its top: the first message's place is what the reader sees.
      const first = await list(page).evaluate((element) => {
        element.scrollTop = 0;
        return element.querySelector('[data-private]')?.getAttribute('data-testid') ?? '';
      });
      expect(first).not.toBe('');
      const top = await topOf(page, first);
      await expect.poll(() => bubbles(page).count(), { timeout: 15_000 }).toBeGreaterThan(before);
      await afterFrames(page);
      expect(Math.abs((await topOf(page, first)) - top), `${first} moved when the older page came in`).toBeLessThanOrEqual(3);
    }
    expect(await bubbles(page).count()).toBe(MESSAGES);
    const sizes = await pageScroll(page);
    expect(sizes.scrollHeight).toBeLessThanOrEqual(sizes.innerHeight);
  });

  it('marks a message that arrives while scrolled up, without moving the view; the jump button and the bottom follow', async () => {
    // The reader is in the middle of the conversation.
    const reference = await list(page).evaluate((element) => {
      element.scrollTop = Math.round((element.scrollHeight - element.clientHeight) / 2);
      const rect = element.getBoundingClientRect();
      const middle = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
      return middle?.closest('[data-private]')?.getAttribute('data-testid') ?? element.querySelectorAll('[data-private]')[30]?.getAttribute('data-testid') ?? '';
    });
    expect(reference).not.toBe('');
    await afterFrames(page);
    const top = await topOf(page, reference);
    const arriving = ARRIVING;
    await contactWrites(token, connectionId, chat.phone, chat.name, arriving);
    await bubbleWith(page, arriving).waitFor({ state: 'attached', timeout: 20_000 });
    const marker = page.locator(byTestId('messages-new-marker'));
    await marker.waitFor();
    expect(await marker.getAttribute('data-count')).toBe('1');
    expect(Math.abs((await topOf(page, reference)) - top), 'the view moved when the message arrived').toBeLessThanOrEqual(2);
    expect(await inWindow(bubbleWith(page, arriving))).toBe(false);

    await page.locator(byTestId('messages-jump-latest')).click();
    await expect.poll(() => inWindow(bubbleWith(page, arriving)), { timeout: 10_000 }).toBe(true);
    await marker.waitFor({ state: 'hidden' });

    // At the bottom, the next one is followed.
    const following = FOLLOWING;
    await contactWrites(token, connectionId, chat.phone, chat.name, following);
    await bubbleWith(page, following).waitFor({ state: 'attached', timeout: 20_000 });
    await expect.poll(() => inWindow(bubbleWith(page, following)), { timeout: 10_000 }).toBe(true);
    expect(await marker.isVisible()).toBe(false);
    // And the reader's own message too.
    const answer = ANSWER;
    await page.locator(byTestId('message-input')).fill(answer);
    await page.locator(byTestId('message-send')).click();
    await expect.poll(() => inWindow(bubbleWith(page, answer)), { timeout: 10_000 }).toBe(true);
  });

  it('shows the contact name uncovered in the header, and it opens the contact drawer', async () => {
    const name = page.locator(byTestId('ticket-header-name'));
    const box = await name.boundingBox();
    expect(box, 'the contact name is on screen').not.toBeNull();
    if (!box) return;
    expect(box.width, 'the contact name has room').toBeGreaterThanOrEqual(phone ? 60 : 100);
    const hit = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid="ticket-contact"]') !== null,
      { x: box.x + Math.min(box.width / 2, 40), y: box.y + box.height / 2 },
    );
    expect(hit, 'something covers the contact name').toBe(true);
    expect(await name.innerText()).toContain(contactName.split(' ')[0]);
    await name.click();
    const drawer = page.locator(`${byTestId('contact-drawer')} .MuiDrawer-paper`);
    await untilSettled(drawer);
    expect(await inWindow(drawer), 'the drawer fits the window').toBe(true);
    // The conversation keeps its room (or the drawer lies over it).
    const input = await page.locator(byTestId('message-input')).boundingBox();
    const drawerBox = await drawer.boundingBox();
    const overlaid = drawerBox && input ? drawerBox.x < input.x + input.width : false;
    if (!overlaid) expect(input?.width ?? 0, 'the input beside the drawer').toBeGreaterThanOrEqual(200);
    await expectNoSidewaysScroll(page, 'the contact drawer');
    const sizes = await pageScroll(page);
    expect(sizes.scrollHeight).toBeLessThanOrEqual(sizes.innerHeight);
    await page.locator(byTestId('contact-drawer-close')).click();
    await drawer.waitFor({ state: 'hidden' });
  });

  it('keeps every header action, in the header or its overflow menu', async () => {
    const { inline, overflow } = await headerActions(page);
    const all = [...inline, ...overflow];
    expect(new Set(all).size, 'an action shows twice').toBe(all.length);
    for (const action of ['resolve', 'transfer', 'return', 'pdf', 'log']) {
      expect(all, `${action} is missing`).toContain(`ticket-header-${action}`);
    }
    if (size === 'desktop') {
      expect(overflow).toEqual([]);
    } else {
      // Not everything fits beside the contact: the rest is in the menu.
      expect(overflow.length).toBeGreaterThan(0);
    }
    // The actions shown lie inside the header.
    const header = await page.locator(byTestId('ticket-header')).boundingBox();
    for (const id of inline) {
      const box = await page.locator(`${byTestId('ticket-header-actions')} ${byTestId(id)}`).boundingBox();
      expect(box && header && box.x + box.width <= header.x + header.width + 0.5, `${id} sticks out of the header`).toBe(true);
    }
  });

  it.runIf(phone)('never scrolls sideways on the phone: list, ticket, dialogs', async () => {
    await expectNoSidewaysScroll(page, 'the ticket');
    await headerAction(page, 'transfer');
    await expectCentredDialogAndClose(page, 'transfer-dialog');

    await headerAction(page, 'resolve');
    await expectCentredDialogAndClose(page, 'resolve-dialog');

    await headerAction(page, 'log');
    await expectCentredDialogAndClose(page, 'ticket-log-dialog');

    const { inline, overflow } = await headerActions(page);
    if ([...inline, ...overflow].includes('ticket-header-schedule')) {
      await headerAction(page, 'schedule');
      await expectCentredDialogAndClose(page, 'schedule-dialog');
    }

    // The list tab, and the new ticket dialog from it.
    await page.locator(byTestId('tickets-mobile-list')).click();
    await page.locator(byTestId('tickets-manager')).waitFor();
    await expectNoSidewaysScroll(page, 'the list');
    await page.locator(byTestId('tickets-new')).click();
    await expectCentredDialogAndClose(page, 'new-ticket-dialog');
    await page.locator(byTestId('tickets-mobile-ticket')).click();
    await page.locator(byTestId('message-input')).waitFor();
    await expectNoSidewaysScroll(page, 'the ticket again');
  });

  it('shows message times on contact bubbles in the dark theme', async () => {
    await openChat();
    await setTheme(page, 'dark');
    const time = bubbleWith(page, LAST).getByText(/^\d{1,2}:\d{2}$/);
    const ratio = await time.evaluate((element) => {
      const parse = (value: string) => {
        const parts = /rgba?\(([^)]+)\)/.exec(value)?.[1].split(/[\s,/]+/).filter(Boolean).map(Number) ?? [0, 0, 0, 0];
        return { r: parts[0], g: parts[1], b: parts[2], a: parts[3] ?? 1 };
      };
      let node: Element | null = element;
      let background = parse('rgba(0, 0, 0, 0)');
      while (node && background.a === 0) {
        background = parse(getComputedStyle(node).backgroundColor);
        node = node.parentElement;
      }
      const text = parse(getComputedStyle(element).color);
      // The text's colour over the bubble.
      const seen = { r: text.r * text.a + background.r * (1 - text.a), g: text.g * text.a + background.g * (1 - text.a), b: text.b * text.a + background.b * (1 - text.a) };
      const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
        const channel = (v: number) => {
          const c = v / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      };
      const [light, dark] = [luminance(seen), luminance(background)].sort((x, y) => y - x);
      return (light + 0.05) / (dark + 0.05);
    });
    expect(ratio, 'the time on a contact bubble is unreadable in the dark theme').toBeGreaterThanOrEqual(4.5);
    await setTheme(page, 'light');
  });

  it.runIf(SCREENSHOTS !== '')('saves the ticket view in the light and dark themes', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    for (const theme of ['light', 'dark'] as const) {
      await openChat();
      await setTheme(page, theme);
      await expect.poll(() => inWindow(bubbleWith(page, ANSWER)), { timeout: 10_000 }).toBe(true);
      // No tooltip or hover in the picture.
      await page.mouse.move(viewport.width / 2, viewport.height / 2);
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(SCREENSHOTS, `ticket-view-${viewport.width}x${viewport.height}-${theme}.png`) });
    }
    await setTheme(page, 'light');
  });
});
