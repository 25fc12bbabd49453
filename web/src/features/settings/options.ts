/** The Options tab (spec 2 "Settings, Options tab", §3): which keys, in which block, edited how. */
import type { Catalogue } from '../../lib/i18n/locales/pt';

export type SettingKey = keyof Catalogue['settings']['keys'];

export type SettingControl =
  | { kind: 'toggle' }
  | { kind: 'select'; options: readonly string[]; labels: 'scheduleTypes' | 'chatBotTypes' }
  | { kind: 'text'; multiline?: boolean; secret?: boolean }
  /** An IANA time zone, chosen from the browser's list with a search. */
  | { kind: 'timezone' };

export interface SettingDefinition {
  key: SettingKey;
  control: SettingControl;
  /** Default shown when the company has no value yet. */
  fallback: string;
}

/** The company time zone used until one is chosen (the server's default). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

const toggle = (key: SettingKey): SettingDefinition => ({ key, control: { kind: 'toggle' }, fallback: 'disabled' });
const text = (key: SettingKey, options: { multiline?: boolean; secret?: boolean } = {}): SettingDefinition => ({
  key,
  control: { kind: 'text', ...options },
  fallback: '',
});

export const GENERAL_OPTIONS: SettingDefinition[] = [
  toggle('userRating'),
  { key: 'scheduleType', control: { kind: 'select', options: ['disabled', 'queue', 'company', 'connection'], labels: 'scheduleTypes' }, fallback: 'disabled' },
  { key: 'timezone', control: { kind: 'timezone' }, fallback: DEFAULT_TIME_ZONE },
  { key: 'chatBotType', control: { kind: 'select', options: ['text'], labels: 'chatBotTypes' }, fallback: 'text' },
  toggle('acceptCallWhatsapp'),
  toggle('userRandom'),
  toggle('sendGreetingMessageOneQueues'),
  toggle('sendSignMessage'),
  toggle('sendFarewellWaitingTicket'),
  toggle('sendGreetingAccepted'),
  toggle('sendQueuePosition'),
  toggle('acceptAudioMessageContact'),
  toggle('sendMsgTransfTicket'),
  toggle('DirectTicketsToWallets'),
  toggle('closeTicketOnTransfer'),
  toggle('requiredTag'),
  toggle('showNotificationPending'),
  toggle('campaignsEnabled'),
];

export const LGPD_SWITCH = toggle('enableLGPD');
/** Shown once LGPD handling is enabled. */
export const LGPD_OPTIONS: SettingDefinition[] = [
  toggle('lgpdDeleteMessage'),
  toggle('lgpdHideNumber'),
  toggle('lgpdConsent'),
  text('lgpdMessage', { multiline: true }),
  text('lgpdLink'),
];

export const MESSAGE_OPTIONS: SettingDefinition[] = [
  text('transferMessage', { multiline: true }),
  text('greetingAcceptedMessage', { multiline: true }),
  text('AcceptCallWhatsappMessage', { multiline: true }),
  text('sendQueuePositionMessage', { multiline: true }),
];

/** Super user only (capability `settings:platform`). */
export const PLATFORM_OPTIONS: SettingDefinition[] = [
  text('keymp', { secret: true }),
  text('asaas', { secret: true }),
  text('efi', { secret: true }),
  { key: 'userCreation', control: { kind: 'toggle' }, fallback: 'enabled' },
  { key: 'allowSignup', control: { kind: 'toggle' }, fallback: 'disabled' },
];

/** Every IANA zone the browser knows, with `value` included even when it does not know it. */
export function timeZoneOptions(value: string): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes(value) || !value ? zones : [value, ...zones];
}
