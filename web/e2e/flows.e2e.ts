/**
 * The flow journey against a real server with the sandbox channel (spec 3 "Flow builder", issue 4):
 * the admin creates a flow on /flowbuilders and draws it in the editor with the mouse — start →
 * menu (two options) → option 1 to a ticket node for queue Vendas, option 2 to one for queue
 * Suporte — saves and publishes it, and the saved graph holds what was drawn → the simulation
 * panel (the core in WebAssembly) shows the menu and, answered "1", ends in Vendas → the admin
 * makes it the connection's welcome flow in the connection dialog's chatbot tab → a new contact
 * writes to the sandbox connection, receives the menu, answers "1" and the ticket lands in Vendas:
 * in the Pending tab with the queue's name and colour, and through the API.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';

const BASE_URL = (process.env.CHATFLOW_E2E_BASE_URL ?? '').replace(/\/$/, '');
const ADMIN_EMAIL = process.env.CHATFLOW_E2E_ADMIN_EMAIL ?? '';
const ADMIN_PASSWORD = process.env.CHATFLOW_E2E_ADMIN_PASSWORD ?? '';

const stamp = Date.now().toString(36);
const FLOW_NAME = `Boas-vindas ${stamp}`;
const SALES = `Vendas ${stamp}`;
const SUPPORT = `Suporte ${stamp}`;
/** Colours are unique in a company: both from the clock. */
const hex = (n: number) => `#${(n % 0xffffff).toString(16).padStart(6, '0')}`;
const SALES_COLOR = hex(Date.now());
const SUPPORT_COLOR = hex(Date.now() + 0x7777);
const MENU_TEXT = `Olá! Como podemos ajudar? ${stamp}`;
/** A number no other journey uses: the contact is new to the company. */
const PHONE = `5521${String(Date.now()).slice(-9)}`;
const CONTACT_NAME = `Joana ${stamp}`;

const byTestId = (id: string) => `[data-testid="${id}"]`;

interface GraphNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}
interface GraphConnection {
  source: string;
  target: string;
  sourceHandle?: string | null;
}
interface FlowEnvelope {
  flow: { id: number; name: string; version: number | null; flow: { nodes: GraphNode[]; connections: GraphConnection[] } | null };
}
interface Ticket {
  id: number;
  status: string;
  queueId: number | null;
  contact: { number: string };
}

async function api<T>(method: string, path: string, token: string | null, body?: unknown): Promise<T> {
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

/** Polls `check` until it returns a value, or fails after `timeout` ms. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeout = 20_000): Promise<T> {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `#rrggbb` → the `rgb(r, g, b)` a computed style answers. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

let browser: Browser;
let page: Page;
let adminToken: string;
let salesId: number;
let supportId: number;
let connectionId: number;
let flowId: number;

async function signIn(email: string, password: string): Promise<void> {
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

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  await locator.waitFor();
  const found = await locator.boundingBox();
  if (!found) throw new Error('the element has no box');
  return found;
}

async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const b = await box(locator);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** Presses the mouse at `from`, moves it in steps to `to` and releases it there. */
async function drag(from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
}

function canvasNode(id: string): Locator {
  return page.locator(`.react-flow__node[data-id="${id}"]`);
}

/** Waits until the canvas stops moving (the first fit, a zoom): its transform reads the same twice. */
async function settle(): Promise<void> {
  const viewport = page.locator('.react-flow__viewport');
  let last = '';
  await expect
    .poll(async () => {
      const now = await viewport.evaluate((el) => getComputedStyle(el).transform);
      const same = now === last;
      last = now;
      return same;
    })
    .toBe(true);
}

/**
 * Drags node `id` by its header so that its top-left corner lands at (`x`, `y`) px of the canvas.
 * React Flow starts a drag once the pointer has moved a little, and that first bit is not applied:
 * a second, shorter drag makes up for it.
 */
async function moveNode(id: string, x: number, y: number): Promise<void> {
  // React Flow shows a node once measured (and fits the view to the first one then).
  await canvasNode(id).waitFor({ state: 'visible' });
  await settle();
  const canvas = await box(page.locator('.react-flow__pane'));
  const offset = async () => {
    const node = await box(canvasNode(id));
    return { dx: canvas.x + x - node.x, dy: canvas.y + y - node.y, node };
  };
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const { dx, dy, node } = await offset();
    if (Math.abs(dx) + Math.abs(dy) < 3) break;
    const grab = { x: node.x + 30, y: node.y + 10 };
    await drag(grab, { x: grab.x + dx, y: grab.y + dy });
  }
  const { dx, dy } = await offset();
  expect(Math.abs(dx) + Math.abs(dy)).toBeLessThan(3);
  // A click on the empty pane drops the selection: a selected node is raised above the next one.
  await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height - 40);
}

/** Adds a node of `type` through the speed dial (and its dialog, filled by `fill`); answers its id. */
async function addNode(type: string, fill?: () => Promise<void>): Promise<string> {
  const before = new Set(await page.locator('.react-flow__node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id') ?? '')));
  await page.locator(byTestId('flow-editor-add')).hover();
  await page.locator(byTestId(`flow-editor-add-${type}`)).click();
  if (fill) {
    const dialog = page.locator(byTestId(`node-dialog-${type}`));
    await dialog.waitFor();
    await fill();
    await dialog.locator(byTestId('node-dialog-save')).click();
    await dialog.waitFor({ state: 'detached' });
  }
  return eventually(async () => {
    const ids = await page.locator('.react-flow__node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id') ?? ''));
    return ids.find((id) => !before.has(id));
  }, `the new ${type} node`);
}

function handle(nodeId: string, kind: 'source' | 'target', handleId?: string): Locator {
  const id = handleId ? `[data-handleid="${handleId}"]` : '';
  return page.locator(`.react-flow__handle.${kind}[data-nodeid="${nodeId}"]${id}`);
}

/** Draws a connection by dragging from a source handle to a target handle. */
async function connect(source: Locator, target: Locator): Promise<void> {
  const edges = await page.locator('.react-flow__edge').count();
  await drag(await centre(source), await centre(target));
  await expect.poll(async () => page.locator('.react-flow__edge').count()).toBe(edges + 1);
}

async function chooseTicketQueue(queueId: number): Promise<void> {
  await page.locator(byTestId('node-ticket-queue')).click();
  await page.locator(byTestId(`node-ticket-queue-option-${queueId}`)).click();
}

describe('a flow drawn in the editor runs on a real conversation', () => {
  beforeAll(async () => {
    expect(BASE_URL, 'CHATFLOW_E2E_BASE_URL').not.toBe('');
    adminToken = (await api<{ token: string }>('POST', '/auth/login', null, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).token;
    salesId = (await api<{ id: number }>('POST', '/queue', adminToken, { name: SALES, color: SALES_COLOR, greetingMessage: 'Bem-vindo às vendas.' })).id;
    supportId = (await api<{ id: number }>('POST', '/queue', adminToken, { name: SUPPORT, color: SUPPORT_COLOR, greetingMessage: 'Bem-vindo ao suporte.' })).id;
    // A sandbox connection, paired: session started, QR code "scanned" by the simulated phone.
    connectionId = (await api<{ id: number }>('POST', '/whatsapp', adminToken, { name: `Fluxos ${stamp}` })).id;
    await api('POST', `/whatsappsession/${connectionId}`, adminToken, {});
    await eventually(async () => ((await api<{ status: string }>('GET', `/whatsapp/${connectionId}`, adminToken)).status === 'qrcode' ? true : undefined), 'the QR code');
    await api('POST', `/sandbox/${connectionId}/scan`, adminToken, {});
    await eventually(async () => ((await api<{ status: string }>('GET', `/whatsapp/${connectionId}`, adminToken)).status === 'CONNECTED' ? true : undefined), 'the pairing');

    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1600, height: 1000 });
    await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('draws start → menu → two ticket nodes with the mouse, saves and publishes', async () => {
    await page.goto(`${BASE_URL}/flowbuilders`);
    await page.locator(byTestId('flows-add')).click();
    await page.locator(byTestId('flow-name-input')).fill(FLOW_NAME);
    await page.locator(byTestId('flow-name-save')).click();
    await page.locator(byTestId('flow-name-dialog')).waitFor({ state: 'detached' });
    const row = page.locator('[data-testid^="flows-row-"]', { hasText: FLOW_NAME });
    await row.waitFor({ timeout: 20_000 });
    flowId = Number((await row.getAttribute('data-testid'))?.replace('flows-row-', ''));
    expect(flowId).toBeGreaterThan(0);
    await page.locator(byTestId(`flows-open-${flowId}`)).click();
    await page.waitForURL(`**/flowbuilder/${flowId}`);
    await page.locator('.react-flow__pane').waitFor({ timeout: 20_000 });

    const start = await addNode('start');
    expect(start).toBe('1');
    // The canvas fits its first node (zoomed in): zoom out with the controls to make room.
    await canvasNode(start).waitFor({ state: 'visible' });
    await settle();
    for (let i = 0; i < 3; i += 1) await page.locator('.react-flow__controls-zoomout').click();
    await moveNode(start, 40, 260);
    const menu = await addNode('menu', async () => {
      await page.locator(byTestId('node-menu-message')).fill(MENU_TEXT);
      await page.locator(byTestId('node-menu-option-1')).fill('Comprar');
      await page.locator(byTestId('node-menu-add-option')).click();
      await page.locator(byTestId('node-menu-option-2')).fill('Ajuda');
    });
    await moveNode(menu, 340, 200);
    const toSales = await addNode('ticket', () => chooseTicketQueue(salesId));
    await moveNode(toSales, 720, 80);
    const toSupport = await addNode('ticket', () => chooseTicketQueue(supportId));
    await moveNode(toSupport, 720, 400);
    await expect.poll(async () => canvasNode(toSales).innerText()).toContain(SALES);
    await expect.poll(async () => canvasNode(toSupport).innerText()).toContain(SUPPORT);

    await connect(handle(start, 'source'), handle(menu, 'target'));
    await connect(handle(menu, 'source', 'a1'), handle(toSales, 'target'));
    await connect(handle(menu, 'source', 'a2'), handle(toSupport, 'target'));

    await page.locator(byTestId('flow-editor-save')).click();
    await expect
      .poll(async () => (await api<FlowEnvelope>('GET', `/flowbuilder/flow/${flowId}`, adminToken)).flow.flow?.nodes.length ?? 0, { timeout: 20_000 })
      .toBe(4);
    await page.locator(byTestId('flow-editor-publish')).click();
    // The editor's chip turns from "not published" to the live version.
    await expect.poll(async () => page.locator(byTestId('flow-editor-version')).innerText(), { timeout: 20_000 }).toMatch(/\b1$/);

    const saved = (await api<FlowEnvelope>('GET', `/flowbuilder/flow/${flowId}`, adminToken)).flow;
    expect(saved.version).toBe(1);
    const graph = saved.flow;
    expect(graph).not.toBeNull();
    const nodes = new Map(graph!.nodes.map((node) => [node.id, node]));
    expect(nodes.get(start)?.type).toBe('start');
    expect(nodes.get(menu)?.type).toBe('menu');
    expect(nodes.get(menu)?.data).toMatchObject({
      message: MENU_TEXT,
      arrayOption: [
        { number: 1, value: 'Comprar' },
        { number: 2, value: 'Ajuda' },
      ],
    });
    expect(nodes.get(toSales)).toMatchObject({ type: 'ticket', data: { queue: { id: salesId, name: SALES } } });
    expect(nodes.get(toSupport)).toMatchObject({ type: 'ticket', data: { queue: { id: supportId, name: SUPPORT } } });
    // Where the nodes were dropped, left to right.
    expect(nodes.get(start)!.position.x).toBeLessThan(nodes.get(menu)!.position.x);
    expect(nodes.get(menu)!.position.x).toBeLessThan(nodes.get(toSales)!.position.x);
    expect(nodes.get(toSales)!.position.y).toBeLessThan(nodes.get(toSupport)!.position.y);
    // The three connections drawn: the start's single exit, and each menu option's own handle.
    const edges = graph!.connections.map((c) => `${c.source}${c.source === start ? '' : `:${c.sourceHandle ?? ''}`}->${c.target}`).sort();
    expect(edges).toEqual([`${start}->${menu}`, `${menu}:a1->${toSales}`, `${menu}:a2->${toSupport}`].sort());
  });

  it('simulates the flow in the browser: the menu, then "1" ends in Vendas', async () => {
    await page.locator(byTestId('flow-simulate')).click();
    const panel = page.locator(byTestId('flow-simulation'));
    await panel.waitFor();
    await expect.poll(async () => panel.locator(byTestId('sim-bot')).allInnerTexts(), { timeout: 20_000 }).toEqual([expect.stringContaining(MENU_TEXT)]);
    expect(await panel.locator(byTestId('sim-bot')).innerText()).toContain('Comprar');
    await expect(panel.locator(byTestId('flow-simulation-issues')).count()).resolves.toBe(0);
    await panel.locator(byTestId('flow-simulation-input')).fill('1');
    await panel.locator(byTestId('flow-simulation-send')).click();
    await panel.locator(byTestId('sim-contact')).filter({ hasText: '1' }).waitFor();
    await expect.poll(async () => panel.locator(byTestId('sim-queue')).innerText()).toContain(SALES);
    await panel.locator(byTestId('sim-end')).waitFor();
    expect(await panel.locator(byTestId('sim-queue')).count()).toBe(1);
    expect(await panel.locator(byTestId('flow-simulation-input')).isDisabled()).toBe(true);
    // A click beside the drawer closes it.
    await page.mouse.click(400, 600);
    await panel.waitFor({ state: 'hidden' });
  });

  it('makes it the welcome flow in the connection dialog', async () => {
    await page.goto(`${BASE_URL}/connections`);
    await page.locator(byTestId(`connections-edit-${connectionId}`)).click();
    const modal = page.locator(byTestId('connection-modal'));
    await modal.waitFor();
    await modal.locator(byTestId('connection-modal-tab-chatbot')).click();
    await modal.locator(byTestId('connection-modal-flowIdWelcome')).click();
    await page.locator(byTestId(`connection-modal-flowIdWelcome-option-${flowId}`)).click();
    await expect.poll(async () => modal.locator(byTestId('connection-modal-flowIdWelcome')).innerText()).toBe(FLOW_NAME);
    await modal.locator(byTestId('connection-modal-save')).click();
    await modal.waitFor({ state: 'detached', timeout: 20_000 });
    const saved = await api<{ flowIdWelcome: number | null }>('GET', `/whatsapp/${connectionId}`, adminToken);
    expect(saved.flowIdWelcome).toBe(flowId);
  });

  it('greets a new contact with the menu and moves the ticket to Vendas on "1"', async () => {
    await api('POST', `/sandbox/${connectionId}/send`, adminToken, { from: PHONE, name: CONTACT_NAME, body: 'Oi, bom dia' });
    const received = await eventually(async () => {
      const got = await api<{ body: string }[]>('GET', `/sandbox/${connectionId}/inbox?to=${PHONE}`, adminToken);
      return got.find((m) => m.body.includes(MENU_TEXT));
    }, 'the menu on the phone');
    expect(received.body).toContain('Comprar');
    expect(received.body).toContain('Ajuda');

    await api('POST', `/sandbox/${connectionId}/send`, adminToken, { from: PHONE, name: CONTACT_NAME, body: '1' });
    const ticket = await eventually(async () => {
      const list = await api<{ tickets: Ticket[] }>('GET', '/tickets?showAll=true', adminToken);
      const found = list.tickets.find((t) => t.contact.number === PHONE);
      return found?.queueId === salesId ? found : undefined;
    }, 'the ticket in queue Vendas');
    expect(ticket.status).toBe('pending');

    // The admin's Pending tab (every queue shown) has it, with the queue's name and colour.
    await page.goto(`${BASE_URL}/tickets`);
    await page.locator(byTestId('tickets-tab-pending')).click();
    await page.locator(byTestId('tickets-list-pending')).waitFor({ timeout: 20_000 });
    const showAll = page.locator(`${byTestId('tickets-show-all')} input`);
    if ((await showAll.count()) > 0 && !(await showAll.isChecked())) await showAll.check();
    const item = page.locator(byTestId(`ticket-item-${ticket.id}`));
    await item.waitFor({ timeout: 20_000 });
    expect(await item.locator(byTestId('ticket-item-name')).innerText()).toBe(CONTACT_NAME);
    const chip = item.locator(byTestId('ticket-item-queue'));
    expect(await chip.innerText()).toBe(SALES);
    expect(await chip.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(rgb(SALES_COLOR));
  });
});
