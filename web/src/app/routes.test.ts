import { describe, expect, it } from 'vitest';
import { MENU_ENTRIES, PLANNED_ROUTES, ROUTE_ONLY_ENTRIES, builtEntries, landingPath, visibleMenuEntries } from './routes';

const ALL_MENU_CAPABILITIES = MENU_ENTRIES.map((entry) => entry.capability);
const ADMIN = ['dashboard:view', 'user-modal:editProfile', 'menu:dashboard', 'menu:tickets', 'menu:users', 'menu:settings', 'page:users', 'page:settings'];
const PLAIN_USER = ['menu:tickets', 'menu:contacts', 'menu:quick-messages'];

describe('menu registry', () => {
  it('lists every entry of spec 1 "Side menu" once, with its capability', () => {
    const capabilities = MENU_ENTRIES.map((e) => e.capability);
    expect(new Set(capabilities).size).toBe(capabilities.length);
    expect(capabilities).toEqual(
      expect.arrayContaining([
        'menu:dashboard', 'menu:reports', 'menu:moments', 'menu:tickets', 'menu:quick-messages', 'menu:contacts',
        'menu:tags', 'menu:helps', 'menu:kanban', 'menu:schedules', 'menu:chats', 'menu:campaigns', 'menu:messages-api',
        'menu:prompts', 'menu:queue-integration', 'menu:connections', 'menu:queues', 'menu:files', 'menu:financeiro',
        'menu:announcements', 'menu:all-connections', 'menu:companies', 'menu:flowbuilders', 'menu:users', 'menu:settings',
      ]),
    );
    expect(capabilities).toHaveLength(25);
  });

  it('gives every built entry an icon, and the pages not built yet none (kept out of the first load)', () => {
    for (const e of builtEntries()) expect(e.icon, e.id).not.toBeNull();
    for (const e of MENU_ENTRIES.filter((m) => !m.built)) expect(e.icon, e.id).toBeNull();
  });

  it('builds only tickets, quick messages, contacts, tags, schedules, flows, users, queues, connections and settings in this version', () => {
    expect(builtEntries().map((e) => e.path)).toEqual([
      '/tickets', '/quick-messages', '/contacts', '/tags', '/schedules', '/flowbuilders', '/users', '/queues', '/connections', '/settings', '/flowbuilder/:id', '/phrase-lists',
    ]);
    // Every user may open the inbox: its page goes with its menu capability.
    expect(builtEntries().map((e) => e.pageCapability)).toEqual([
      'menu:tickets', 'menu:quick-messages', 'menu:contacts', 'menu:tags', 'menu:schedules', 'menu:flowbuilders', 'page:users', 'menu:queues', 'menu:connections', 'page:settings',
      'menu:flowbuilders', 'menu:flowbuilders',
    ]);
    for (const entry of [...MENU_ENTRIES, ...ROUTE_ONLY_ENTRIES]) expect(!!entry.page).toBe(entry.built);
  });

  it('routes the flow editor and the phrase campaigns without menu entries of their own', () => {
    expect(ROUTE_ONLY_ENTRIES.map((e) => e.path)).toEqual(['/flowbuilder/:id', '/phrase-lists']);
    expect(visibleMenuEntries(['menu:flowbuilders']).map((e) => e.path)).toEqual(['/flowbuilders']);
  });
});

describe('menu gating', () => {
  it('an admin sees tickets, users and settings', () => {
    expect(visibleMenuEntries(ADMIN).map((e) => e.id)).toEqual(['tickets', 'users', 'settings']);
  });

  it('a plain user sees tickets, quick messages and contacts', () => {
    expect(visibleMenuEntries(PLAIN_USER).map((e) => e.id)).toEqual(['tickets', 'quick-messages', 'contacts']);
    expect(visibleMenuEntries([])).toEqual([]);
  });

  it('an entry needs its own capability', () => {
    expect(visibleMenuEntries(['menu:settings']).map((e) => e.id)).toEqual(['settings']);
    expect(visibleMenuEntries(['page:users']).map((e) => e.id)).toEqual([]);
  });

  it('never shows an unbuilt entry, whatever the capabilities', () => {
    const visible = visibleMenuEntries(ALL_MENU_CAPABILITIES);
    expect(visible.every((e) => e.built)).toBe(true);
    expect(visible.map((e) => e.id)).toEqual(['tickets', 'quick-messages', 'contacts', 'tags', 'schedules', 'flowbuilders', 'users', 'queues', 'connections', 'settings']);
  });

  it('lands on the first visible entry, or on the home view', () => {
    expect(landingPath(ADMIN)).toBe('/tickets');
    expect(landingPath(['menu:settings'])).toBe('/settings');
    expect(landingPath(PLAIN_USER)).toBe('/tickets');
    expect(landingPath([])).toBeNull();
  });
});

describe('routes of the spec not built yet', () => {
  it('covers every unbuilt menu entry and the spec routes without one, none of them built or in the menu', () => {
    expect(PLANNED_ROUTES).toEqual(
      expect.arrayContaining([
        '/reports', '/moments', '/helps', '/Kanban', '/chats', '/chats/:id', '/campaigns', '/messages-api', '/prompts',
        '/queue-integration', '/files', '/financeiro', '/announcements', '/allConnections', '/companies', '/TagsKanban',
        '/todolist', '/subscription', '/contact-lists', '/contact-lists/:contactListId/contacts', '/campaign/:campaignId/report',
        '/campaigns-config',
      ]),
    );
    expect(new Set(PLANNED_ROUTES).size).toBe(PLANNED_ROUTES.length);
    const built = builtEntries().map((e) => e.path);
    for (const path of PLANNED_ROUTES) expect(built).not.toContain(path);
    // The start page is "/", never "not available".
    expect(PLANNED_ROUTES).not.toContain('/');
    const menu = visibleMenuEntries(ALL_MENU_CAPABILITIES).map((e) => e.path);
    for (const path of PLANNED_ROUTES) expect(menu).not.toContain(path);
  });
});
