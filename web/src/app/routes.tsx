/**
 * The single registry of the side menu (spec 1 "Side menu"): every entry with its path, icon,
 * label, group and the capability the server must grant for it to show. Only entries whose page
 * is built in this version (`built: true`) become routes and menu items; the rest are listed so
 * later issues only flip the flag and add the page.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { SvgIconComponent } from '@mui/icons-material';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import AllInboxIcon from '@mui/icons-material/AllInbox';
import ContactPhoneIcon from '@mui/icons-material/ContactPhone';
import EventIcon from '@mui/icons-material/Event';
import LocalOfferIcon from '@mui/icons-material/LocalOffer';
import PeopleAltIcon from '@mui/icons-material/PeopleAlt';
import QuestionAnswerIcon from '@mui/icons-material/QuestionAnswer';
import SettingsIcon from '@mui/icons-material/Settings';
import SyncAltIcon from '@mui/icons-material/SyncAlt';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { withCatalogues } from '../lib/i18n';
import type pt from '../lib/i18n/locales/pt';

export type MenuGroup = keyof typeof pt.menu.groups;
type MenuLabel = Exclude<keyof typeof pt.menu, 'groups' | 'version'>;

export interface MenuEntry {
  id: string;
  path: string;
  /**
   * The menu's icon; null for a page not built yet (it shows in no menu), so its icon is not in
   * the first load: the issue that builds the page gives it one.
   */
  icon: SvgIconComponent | null;
  /** Translation key under `menu.` */
  label: MenuLabel;
  group: MenuGroup;
  /** Capability that shows the menu entry. */
  capability: string;
  /** Capability that opens the page; without it the 403 page is shown. */
  pageCapability: string;
  built: boolean;
  /** The page, split into its own chunk; present when built. */
  page?: LazyExoticComponent<ComponentType>;
  /** The page also serves the paths below its own (`/tickets/{uuid}`). */
  nested?: boolean;
}

function entry(
  id: string,
  path: string,
  icon: SvgIconComponent | null,
  label: MenuLabel,
  group: MenuGroup,
  page?: LazyExoticComponent<ComponentType>,
): MenuEntry {
  return { id, path, icon, label, group, capability: `menu:${id}`, pageCapability: `page:${id}`, built: !!page, page };
}

/** In menu order. */
export const MENU_ENTRIES: readonly MenuEntry[] = [
  entry('dashboard', '/', null, 'dashboard', 'management'),
  entry('reports', '/reports', null, 'reports', 'management'),
  entry('moments', '/moments', null, 'moments', 'management'),
  { ...entry('tickets', '/tickets', WhatsAppIcon, 'tickets', 'service', lazy(() => import('../features/tickets/components/TicketsPage'))), pageCapability: 'menu:tickets', nested: true },
  { ...entry('quick-messages', '/quick-messages', QuestionAnswerIcon, 'quickMessages', 'service', lazy(() => import('../features/quick-messages/components/QuickMessagesPage'))), pageCapability: 'menu:quick-messages' },
  { ...entry('contacts', '/contacts', ContactPhoneIcon, 'contacts', 'service', lazy(() => import('../features/contacts/components/ContactsRoutes'))), pageCapability: 'menu:contacts', nested: true },
  { ...entry('tags', '/tags', LocalOfferIcon, 'tags', 'service', lazy(() => import('../features/contacts/tags/components/TagsPage'))), pageCapability: 'menu:tags' },
  entry('helps', '/helps', null, 'helps', 'service'),
  entry('kanban', '/Kanban', null, 'kanban', 'service'),
  { ...entry('schedules', '/schedules', EventIcon, 'schedules', 'service', lazy(() => import('../features/schedules/components/SchedulesPage'))), pageCapability: 'menu:schedules' },
  entry('chats', '/chats', null, 'chats', 'service'),
  entry('campaigns', '/campaigns', null, 'campaigns', 'campaigns'),
  // Admins only (the server grants menu:flowbuilders with ManageFlows); the menu's capability opens the page.
  { ...entry('flowbuilders', '/flowbuilders', AccountTreeIcon, 'flowbuilders', 'campaigns', lazy(withCatalogues(['flows', 'connections'], () => import('../features/flows/components/FlowsPage')))), pageCapability: 'menu:flowbuilders' },
  entry('messages-api', '/messages-api', null, 'messagesApi', 'service'),
  entry('prompts', '/prompts', null, 'prompts', 'service'),
  entry('queue-integration', '/queue-integration', null, 'queueIntegration', 'service'),
  entry('users', '/users', PeopleAltIcon, 'users', 'administration', lazy(withCatalogues(['users'], () => import('../features/users/components/UsersPage')))),
  // No page capability of its own: the menu's (admins only, spec 1 "Side menu") opens the page too.
  { ...entry('queues', '/queues', AllInboxIcon, 'queues', 'administration', lazy(withCatalogues(['queues'], () => import('../features/queues/components/QueuesPage')))), pageCapability: 'menu:queues' },
  { ...entry('connections', '/connections', SyncAltIcon, 'connections', 'administration', lazy(withCatalogues(['connections'], () => import('../features/connections/components/ConnectionsPage')))), pageCapability: 'menu:connections' },
  entry('files', '/files', null, 'files', 'administration'),
  entry('financeiro', '/financeiro', null, 'financeiro', 'administration'),
  entry('settings', '/settings', SettingsIcon, 'settings', 'administration', lazy(withCatalogues(['queues', 'settings'], () => import('../features/settings/components/SettingsPage')))),
  entry('announcements', '/announcements', null, 'announcements', 'platform'),
  entry('all-connections', '/allConnections', null, 'allConnections', 'platform'),
  entry('companies', '/companies', null, 'companies', 'platform'),
];

/** Builds a routed page that has no menu entry (same shape; its capabilities are set below). */
const routeOnlyEntry = entry;

/**
 * Pages routed without a menu entry of their own (spec 3 §2.1): the flow editor, opened from the
 * flow list, and the phrase campaigns. Both need what the flow list needs (admins only).
 */
export const ROUTE_ONLY_ENTRIES: readonly MenuEntry[] = [
  {
    ...routeOnlyEntry('flowbuilder', '/flowbuilder/:id', AccountTreeIcon, 'flowbuilders', 'campaigns', lazy(withCatalogues(['flows', 'connections'], () => import('../features/flows/components/FlowEditorPage')))),
    capability: 'menu:flowbuilders',
    pageCapability: 'menu:flowbuilders',
  },
  {
    ...routeOnlyEntry('phrase-lists', '/phrase-lists', AccountTreeIcon, 'flowbuilders', 'campaigns', lazy(withCatalogues(['flows', 'connections'], () => import('../features/flows/components/PhraseListsPage')))),
    capability: 'menu:flowbuilders',
    pageCapability: 'menu:flowbuilders',
  },
];

/**
 * Routes of the spec whose pages are not built in this version: the unbuilt menu entries (but
 * `/`, the start page) and the spec's routes without a menu entry. Each shows the "not available
 * yet" page rather than leading elsewhere; none is in the menu. Matching ignores case (`/Kanban`).
 * Any other address is a 404.
 */
export const PLANNED_ROUTES: readonly string[] = [
  ...MENU_ENTRIES.filter((e) => !e.built && e.path !== '/').map((e) => e.path),
  '/chats/:id',
  '/TagsKanban',
  '/todolist',
  '/subscription',
  '/contact-lists',
  '/contact-lists/:contactListId/contacts',
  '/campaign/:campaignId/report',
  '/campaigns-config',
];

/** Entries that are routed in this version: built menu entries, then the route-only pages. */
export function builtEntries(entries: readonly MenuEntry[] = [...MENU_ENTRIES, ...ROUTE_ONLY_ENTRIES]): MenuEntry[] {
  return entries.filter((e) => e.built && e.page);
}

/** The menu a user sees: built entries whose capability the server granted. */
export function visibleMenuEntries(permissions: readonly string[], entries: readonly MenuEntry[] = MENU_ENTRIES): MenuEntry[] {
  return builtEntries(entries).filter((e) => permissions.includes(e.capability));
}

/** Where "/" and a fresh sign-in lead: the first visible entry, or null for the plain home view. */
export function landingPath(permissions: readonly string[], entries: readonly MenuEntry[] = MENU_ENTRIES): string | null {
  return visibleMenuEntries(permissions, entries)[0]?.path ?? null;
}
