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
 * Then the editor as issue 15 found it at 1366×768, in light and dark: a new flow opens with its
 * start node; the simulator's title and restart button are not under the app bar; the add-node
 * menu fits in the window; two nodes added in a row do not overlap; leaving with unsaved edits
 * asks first (and staying keeps them); the toolbar stays on one line after publishing; the zoom
 * controls' icons show in dark mode; the phrase-campaign dialog translates connection statuses.
 *
 * Environment: CHATFLOW_E2E_BASE_URL, CHATFLOW_E2E_ADMIN_EMAIL, CHATFLOW_E2E_ADMIN_PASSWORD,
 * optionally CHROMIUM_PATH (default /usr/bin/chromium). The server must run with the sandbox on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, VIEWPORTS, api, byTestId, eventually, login, pairedSandboxConnection, screenshotOnFailure, signIn, untilSettled } from './support';

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

screenshotOnFailure('flows', () => page);

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

/** The ids of the nodes on the canvas. */
async function nodeIds(): Promise<string[]> {
  return page.locator('.react-flow__node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id') ?? ''));
}

/** Opens the add-node menu; answers its entry for `type`. */
async function openAddMenu(type: string): Promise<Locator> {
  await page.locator(byTestId('flow-editor-add')).click();
  const entry = page.locator(byTestId(`flow-editor-add-${type}`));
  await entry.waitFor({ state: 'attached' });
  return entry;
}

/** Adds a node of `type` through the add-node menu (and its dialog, filled by `fill`); answers its id. */
async function addNode(type: string, fill?: () => Promise<void>): Promise<string> {
  const before = new Set(await nodeIds());
  await (await openAddMenu(type)).click();
  if (fill) {
    const dialog = page.locator(byTestId(`node-dialog-${type}`));
    await dialog.waitFor();
    await fill();
    await dialog.locator(byTestId('node-dialog-save')).click();
    await dialog.waitFor({ state: 'detached' });
  }
  return eventually(async () => (await nodeIds()).find((id) => !before.has(id)), `the new ${type} node`);
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
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
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
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
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

    // A new flow opens with its start node (id "1") placed.
    const start = '1';
    await canvasNode(start).waitFor({ state: 'visible' });
    expect(await nodeIds()).toEqual([start]);
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

/** Creates a flow through the API, with `graph` saved as its draft and published when given. */
async function flowThroughApi(name: string, graph?: { nodes: GraphNode[]; connections: (GraphConnection & { id: string })[] }): Promise<number> {
  const id = (await api<{ id: number }>('POST', '/flowbuilder', adminToken, { name })).id;
  if (graph) {
    await api('POST', '/flowbuilder/flow', adminToken, { idFlow: id, ...graph });
    await api('POST', `/flowbuilder/${id}/publish`, adminToken);
  }
  return id;
}

/** Opens the editor of flow `id` and waits for its canvas and its first node. */
async function openEditor(id: number): Promise<void> {
  await page.goto(`${BASE_URL}/flowbuilder/${id}`);
  await page.locator('.react-flow__pane').waitFor({ timeout: 20_000 });
}

/** Whether the element at the centre of `locator` (what a click there reaches) is it or inside it. */
async function onTop(locator: Locator): Promise<boolean> {
  await locator.waitFor({ state: 'visible' });
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** `rgb(...)`/`rgba(...)` → [r, g, b, a]. */
function channels(colour: string): [number, number, number, number] {
  const parts = colour.match(/[\d.]+/g)?.map(Number) ?? [];
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
}

/** WCAG contrast ratio of two opaque colours. */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r, g, bl] = channels(colour).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

const A_GRAPH = {
  nodes: [
    { id: '1', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Inicio do fluxo' } },
    { id: 'hello', type: 'message', position: { x: 320, y: 0 }, data: { label: 'Olá!' } },
  ],
  connections: [{ id: 'e1', source: '1', target: 'hello' }],
};

describe('the flow editor at 1366×768 (issue 15)', () => {
  let pairedId: number;

  beforeAll(async () => {
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    pairedId = await pairedSandboxConnection(adminToken, `Frases ${stamp}`);
    browser = await launchBrowser({ viewport: VIEWPORTS.laptop });
    page = await browser.context.newPage();
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await browser?.close();
  });

  let newFlowId: number;

  it('opens a new flow with its start node placed, saved with the first save', async () => {
    newFlowId = await flowThroughApi(`Novo ${stamp}`);
    expect((await api<FlowEnvelope>('GET', `/flowbuilder/flow/${newFlowId}`, adminToken)).flow.flow).toBeNull();
    await openEditor(newFlowId);
    const starts = page.locator('.react-flow__node-start');
    await starts.first().waitFor({ state: 'visible', timeout: 20_000 });
    expect(await starts.count()).toBe(1);
    expect(await nodeIds()).toEqual(['1']);
  });

  it('fits the add-node menu in the window, every entry reachable without scrolling the page', async () => {
    await settle();
    const entries = ['start', 'content', 'menu', 'condition'];
    await openAddMenu(entries[0]);
    for (const type of entries) {
      const entry = page.locator(byTestId(`flow-editor-add-${type}`));
      await entry.scrollIntoViewIfNeeded();
      const b = await box(entry);
      expect(b.y, `${type} top`).toBeGreaterThanOrEqual(0);
      expect(b.y + b.height, `${type} bottom`).toBeLessThanOrEqual(VIEWPORTS.laptop.height);
      expect(b.x + b.width, `${type} right`).toBeLessThanOrEqual(VIEWPORTS.laptop.width);
    }
    // The window itself never scrolled to show them.
    expect(await page.evaluate(() => [window.scrollY, document.documentElement.scrollHeight <= window.innerHeight])).toEqual([0, true]);
    await page.keyboard.press('Escape');
  });

  it('places two nodes added in a row where no node overlaps another', async () => {
    const fill = (text: string) => async () => {
      await page.locator(byTestId('node-message-text')).fill(text);
    };
    const first = await addNode('message', fill('Primeira mensagem'));
    const second = await addNode('message', fill('Segunda mensagem'));
    await canvasNode(second).waitFor({ state: 'visible' });
    const boxes = await Promise.all(['1', first, second].map((id) => box(canvasNode(id))));
    for (let i = 0; i < boxes.length; i += 1) for (let j = i + 1; j < boxes.length; j += 1) expect(overlap(boxes[i], boxes[j]), `nodes ${i} and ${j} overlap`).toBe(false);
  });

  it('asks before leaving with unsaved edits: staying keeps them, saving lets the page go', async () => {
    const before = await nodeIds();
    expect(before).toHaveLength(3);
    await page.locator(byTestId('flow-editor-back')).click();
    const dialog = page.locator(byTestId('flow-editor-leave-dialog'));
    await dialog.waitFor({ timeout: 5_000 });
    await dialog.locator(byTestId('flow-editor-leave-stay')).click();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/flowbuilder/${newFlowId}`);
    expect(await nodeIds()).toEqual(before);
    // Closing or reloading the tab is held too (the browser asks).
    expect(await page.evaluate(() => !window.dispatchEvent(new Event('beforeunload', { cancelable: true })))).toBe(true);

    await page.locator(byTestId('flow-editor-save')).click();
    await expect
      .poll(async () => (await api<FlowEnvelope>('GET', `/flowbuilder/flow/${newFlowId}`, adminToken)).flow.flow?.nodes.map((n) => n.type).sort(), { timeout: 20_000 })
      .toEqual(['message', 'message', 'start']);
    // Saved: the page lets the tab go once the answer is in (the save's state lands after the server's).
    await expect.poll(async () => page.evaluate(() => window.dispatchEvent(new Event('beforeunload', { cancelable: true })))).toBe(true);
    await page.locator(byTestId('flow-editor-back')).click();
    await page.waitForURL('**/flowbuilders');
    expect(await page.locator(byTestId('flow-editor-leave-dialog')).count()).toBe(0);
  });

  it('keeps the toolbar on one line after publishing, and shows the simulator below the app bar', async () => {
    const id = await flowThroughApi(`Boas-vindas publicado ${stamp}`, A_GRAPH);
    await openEditor(id);
    await expect.poll(async () => page.locator(byTestId('flow-editor-version')).innerText()).toMatch(/\b1$/);
    const toolbar = page.locator(`${byTestId('flow-editor')} > :first-child`);
    const bar = await box(toolbar);
    const save = await box(page.locator(byTestId('flow-editor-save')));
    expect(bar.height, 'the toolbar is one row').toBeLessThanOrEqual(Math.max(save.height, 40) + 4);
    for (const id of ['flow-editor-name', 'flow-editor-version', 'flow-simulate', 'flow-editor-publish', 'flow-editor-save']) {
      const b = await box(page.locator(byTestId(id)));
      expect(b.y, `${id} inside the toolbar`).toBeGreaterThanOrEqual(bar.y - 1);
      expect(b.y + b.height, `${id} inside the toolbar`).toBeLessThanOrEqual(bar.y + bar.height + 1);
    }

    await page.locator(byTestId('flow-simulate')).click();
    const panel = page.locator(byTestId('flow-simulation'));
    await panel.locator(byTestId('sim-bot')).first().waitFor({ timeout: 20_000 });
    // The drawer slides in: what is on top is asked once it has stopped.
    await untilSettled(panel);
    expect(await onTop(panel.locator(byTestId('flow-simulation-title'))), 'the title is on top').toBe(true);
    expect(await onTop(panel.locator(byTestId('flow-simulation-restart'))), 'the restart button is on top').toBe(true);
    await panel.locator(byTestId('flow-simulation-restart')).click();
    await expect.poll(async () => panel.locator(byTestId('sim-bot')).allInnerTexts()).toEqual(['Olá!']);
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
  });

  it('shows the zoom controls in dark mode', async () => {
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    try {
      await openEditor(newFlowId);
      const buttons = page.locator('.react-flow__controls-button');
      await buttons.first().waitFor({ timeout: 20_000 });
      const colours = await buttons.evaluateAll((list) =>
        list.map((button) => {
          // The first opaque background at or behind the button.
          let background = 'rgba(0, 0, 0, 0)';
          for (let el: Element | null = button; el && /rgba\(.*, 0\)$|transparent/.test(background); el = el.parentElement) background = getComputedStyle(el).backgroundColor;
          const icon = button.querySelector('svg');
          return { background, fill: icon ? getComputedStyle(icon).fill : '' };
        }),
      );
      expect(colours.length).toBeGreaterThanOrEqual(3);
      for (const { background, fill } of colours) expect(contrast(fill, background), `icon ${fill} on ${background}`).toBeGreaterThanOrEqual(3);
    } finally {
      await page.evaluate(() => localStorage.setItem('preferredTheme', 'light'));
    }
  });

  it('translates the connection status in the phrase-campaign dialog', async () => {
    await page.goto(`${BASE_URL}/phrase-lists`);
    await page.locator(byTestId('phrase-lists-add')).click();
    await page.locator(byTestId('phrase-connection')).click();
    const option = page.locator(byTestId(`phrase-connection-option-${pairedId}`));
    await option.waitFor();
    const text = await option.innerText();
    expect(text).toContain('Conectado');
    expect(text).not.toContain('CONNECTED');
    await page.keyboard.press('Escape');
  });
});

describe('the flow editor on a 390×844 phone (issue 15)', () => {
  beforeAll(async () => {
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    browser = await launchBrowser({ viewport: VIEWPORTS.phone, mobile: true });
    page = await browser.context.newPage();
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('fits the page and asks before leaving with its three answers each on one line', async () => {
    const id = await flowThroughApi(`Celular ${stamp}`);
    await openEditor(id);
    await page.locator('.react-flow__node-start').first().waitFor({ state: 'visible', timeout: 20_000 });
    await addNode('message', async () => {
      await page.locator(byTestId('node-message-text')).fill('Olá do celular');
    });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    await page.locator(byTestId('flow-editor-back')).click();
    const dialog = page.locator(byTestId('flow-editor-leave-dialog'));
    await dialog.waitFor({ timeout: 5_000 });
    for (const answer of ['stay', 'discard', 'save']) {
      const button = dialog.locator(byTestId(`flow-editor-leave-${answer}`));
      const b = await box(button);
      // One line of label (a wrapped label makes a button about 56 px tall), inside the screen.
      expect(b.height, `${answer} height`).toBeLessThanOrEqual(44);
      expect(b.x, `${answer} left`).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width, `${answer} right`).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    }
    await dialog.locator(byTestId('flow-editor-leave-discard')).click();
    await page.waitForURL('**/flowbuilders');
  });
});
