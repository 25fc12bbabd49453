import { describe, expect, it } from 'vitest';
import { chimeSamples, notificationSoundUrl, readVolume, wavFile } from '../../lib/sound';
import { titleBadge } from '../../lib/title';
import { applyNotificationTicket, removeNotification, shouldPlaySound, visibleNotifications, type UnreadTickets } from './notifications';
import { ticketFixture } from '../../test/inbox-fixtures';
import { ticketSchema, type Ticket } from './types';

const ticket = (id: number, overrides: Record<string, unknown> = {}): Ticket => ticketSchema.parse(ticketFixture(id, { unreadMessages: 1, ...overrides }));
const data = (...tickets: Ticket[]): UnreadTickets => ({ tickets, total: tickets.length });
const ids = (value: UnreadTickets | undefined) => value?.tickets.map((t) => t.id);

describe('notification list rules', () => {
  it('puts a ticket with unread messages of mine or unassigned on top, once', () => {
    let list = applyNotificationTicket(data(ticket(1)), ticket(2), 1);
    expect(ids(list)).toEqual([2, 1]);
    expect(list?.total).toBe(2);
    list = applyNotificationTicket(list, ticket(1, { unreadMessages: 3 }), 1);
    expect(ids(list)).toEqual([1, 2]);
    expect(list?.total).toBe(2);
    list = applyNotificationTicket(list, ticket(3, { userId: null, user: null, status: 'pending' }), 1);
    expect(ids(list)).toEqual([3, 1, 2]);
    expect(list?.total).toBe(3);
  });

  it('drops a ticket that was read, went to someone else or closed; ignores others', () => {
    const list = data(ticket(1), ticket(2), ticket(3));
    expect(ids(applyNotificationTicket(list, ticket(1, { unreadMessages: 0 }), 1))).toEqual([2, 3]);
    expect(ids(applyNotificationTicket(list, ticket(2, { userId: 9, user: { id: 9, name: 'Outro' } }), 1))).toEqual([1, 3]);
    expect(ids(applyNotificationTicket(list, ticket(3, { status: 'closed' }), 1))).toEqual([1, 2]);
    expect(applyNotificationTicket(list, ticket(4, { userId: 9 }), 1)).toBe(list);
    expect(applyNotificationTicket(undefined, ticket(4), 1)).toBeUndefined();
    const removed = removeNotification(list, 2);
    expect(ids(removed)).toEqual([1, 3]);
    expect(removed?.total).toBe(2);
    expect(removeNotification(list, 99)).toBe(list);
  });

  it('leaves the open ticket out of what the bell shows', () => {
    const list = { tickets: [ticket(1), ticket(2)], total: 30 };
    const shown = visibleNotifications(list, 'uuid-2');
    expect(ids(shown)).toEqual([1]);
    expect(shown.total).toBe(29);
    expect(visibleNotifications(list, 'uuid-9')).toBe(list);
    expect(visibleNotifications(list, undefined)).toBe(list);
    expect(visibleNotifications(undefined, undefined)).toEqual({ tickets: [], total: 0 });
  });
});

describe('when the sound plays', () => {
  const context = { userId: 1, openUuid: 'uuid-5', focused: true };
  const event = (overrides: { action?: string; message?: Record<string, unknown>; ticket?: Record<string, unknown> } = {}) => ({
    action: overrides.action ?? 'create',
    message: { id: 1, fromMe: false, isPrivate: false, ...overrides.message },
    ticket: ticketFixture(7, { unreadMessages: 1, ...overrides.ticket }),
  });

  it('for a new contact message on a ticket of mine or unassigned', () => {
    expect(shouldPlaySound(event(), context)).toBe(true);
    expect(shouldPlaySound(event({ ticket: { userId: null, user: null, status: 'pending' } }), context)).toBe(true);
  });

  it('not for my own messages, notes, gap notices, updates, other attendants’ tickets or broken payloads', () => {
    expect(shouldPlaySound(event({ message: { fromMe: true } }), context)).toBe(false);
    expect(shouldPlaySound(event({ message: { isPrivate: true } }), context)).toBe(false);
    expect(shouldPlaySound(event({ message: { mediaType: 'gap', body: '2026-11-29T10:01:00Z/2026-11-29T10:09:00Z' } }), context)).toBe(false);
    expect(shouldPlaySound(event({ action: 'update' }), context)).toBe(false);
    expect(shouldPlaySound(event({ ticket: { userId: 9 } }), context)).toBe(false);
    expect(shouldPlaySound({ action: 'create', message: { id: 1 } }, context)).toBe(false);
  });

  it('not for the ticket open on a focused page; yes when the page is in the background', () => {
    const onOpen = event({ ticket: { id: 5, uuid: 'uuid-5' } });
    expect(shouldPlaySound(onOpen, context)).toBe(false);
    expect(shouldPlaySound(onOpen, { ...context, focused: false })).toBe(true);
  });
});

describe('title badge', () => {
  it('shows 1 to 20 as a circled number and more in parentheses', () => {
    expect(titleBadge(0)).toBe('');
    expect(titleBadge(-3)).toBe('');
    expect(titleBadge(1)).toBe('①');
    expect(titleBadge(3)).toBe('③');
    expect(titleBadge(20)).toBe('⑳');
    expect(titleBadge(21)).toBe('(21)');
    expect(titleBadge(150)).toBe('(150)');
  });
});

describe('notification sound', () => {
  it('is a valid mono 16-bit WAV of a short audible chime', () => {
    const samples = chimeSamples(22_050);
    const bytes = wavFile(samples, 22_050);
    const view = new DataView(bytes.buffer);
    const text = (offset: number, length: number) => String.fromCharCode(...bytes.subarray(offset, offset + length));
    expect(text(0, 4)).toBe('RIFF');
    expect(view.getUint32(4, true)).toBe(bytes.length - 8);
    expect(text(8, 4)).toBe('WAVE');
    expect(text(12, 4)).toBe('fmt ');
    expect(view.getUint16(20, true)).toBe(1);
    expect(view.getUint16(22, true)).toBe(1);
    expect(view.getUint32(24, true)).toBe(22_050);
    expect(view.getUint16(34, true)).toBe(16);
    expect(text(36, 4)).toBe('data');
    expect(view.getUint32(40, true)).toBe(samples.length * 2);
    // Between a quarter and half a second, loud enough to hear, never clipped.
    expect(samples.length / 22_050).toBeGreaterThan(0.25);
    expect(samples.length / 22_050).toBeLessThan(0.5);
    const peak = Math.max(...Array.from(samples, Math.abs));
    expect(peak).toBeGreaterThan(0.2 * 0x7fff);
    expect(peak).toBeLessThan(0x7fff);
    expect(notificationSoundUrl()).toMatch(/^data:audio\/wav;base64,UklGR/);
  });

  it('reads the stored volume (1 by default, clamped)', () => {
    expect(readVolume()).toBe(1);
    localStorage.setItem('volume', '0.3');
    expect(readVolume()).toBe(0.3);
    localStorage.setItem('volume', '4');
    expect(readVolume()).toBe(1);
    localStorage.setItem('volume', 'x');
    expect(readVolume()).toBe(1);
  });
});
