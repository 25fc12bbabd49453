import { describe, expect, it } from 'vitest';
import { connectionSchema } from '../types';
import { connectionFixture } from '../test/fixtures';
import { importBody, importFormErrors, importPercent, importInstant, savingUnlinks, toLocalInput, type ImportFormValues } from './import-messages';

const two = (n: number) => String(n).padStart(2, '0');
/** A Date as a `datetime-local` value, written out here rather than by the code under test. */
const local = (date: Date) => `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;

const NOW = new Date(2026, 2, 4, 15, 7, 30);
const form = (overrides: Partial<ImportFormValues> = {}): ImportFormValues => ({
  enableImportMessage: true,
  importOldMessages: local(new Date(2025, 0, 1, 8, 0)),
  importRecentMessages: local(new Date(2026, 2, 4, 15, 0)),
  queueIdImportMessages: 4,
  ...overrides,
});

describe('import checks', () => {
  it('checks nothing with import off', () => {
    expect(importFormErrors(form({ enableImportMessage: false, importOldMessages: '', importRecentMessages: '', queueIdImportMessages: '' }), NOW)).toEqual({});
  });

  it('requires both dates and the queue with import on', () => {
    expect(importFormErrors(form({ importOldMessages: '', importRecentMessages: '', queueIdImportMessages: '' }), NOW)).toEqual({
      importOldMessages: 'REQUIRED',
      importRecentMessages: 'REQUIRED',
      queueIdImportMessages: 'REQUIRED',
    });
    expect(importFormErrors(form(), NOW)).toEqual({});
  });

  it('starts at most 2 years back, to the minute', () => {
    expect(importFormErrors(form({ importOldMessages: local(new Date(2024, 2, 4, 15, 8)) }), NOW)).toEqual({});
    expect(importFormErrors(form({ importOldMessages: local(new Date(2024, 2, 4, 15, 7)) }), NOW)).toEqual({ importOldMessages: 'connections.validation.importTooOld' });
    expect(importFormErrors(form({ importOldMessages: local(new Date(2023, 11, 31, 0, 0)) }), NOW)).toEqual({ importOldMessages: 'connections.validation.importTooOld' });
  });

  it('takes no date in the future, and no end before the start', () => {
    expect(importFormErrors(form({ importOldMessages: local(NOW), importRecentMessages: local(NOW) }), NOW)).toEqual({});
    const later = local(new Date(2026, 2, 4, 15, 8));
    expect(importFormErrors(form({ importOldMessages: later, importRecentMessages: later }), NOW)).toEqual({
      importOldMessages: 'connections.validation.importFuture',
      importRecentMessages: 'connections.validation.importFuture',
    });
    expect(importFormErrors(form({ importRecentMessages: local(new Date(2024, 11, 31, 23, 59)) }), NOW)).toEqual({ importRecentMessages: 'connections.validation.importOrder' });
  });
});

describe('import body', () => {
  const stored = connectionSchema.parse(
    connectionFixture(1, {
      enableImportMessage: true,
      importOldMessages: '2025-01-01T08:00:42.000Z',
      importRecentMessages: '2026-03-01T10:30:00.000Z',
      queueIdImportMessages: 4,
    }),
  );

  it('sends null/false throughout with import off, or on a channel without it', () => {
    const off = { enableImportMessage: false, importOldMessages: null, importRecentMessages: null, importOldMessagesGroups: false, closedTicketsPostImported: false, queueIdImportMessages: null };
    expect(importBody({ ...form({ enableImportMessage: false }), importOldMessagesGroups: true, closedTicketsPostImported: true }, null, true)).toEqual(off);
    expect(importBody({ ...form(), importOldMessagesGroups: true, closedTicketsPostImported: true }, null, false)).toEqual(off);
  });

  it('sends the typed minute as an instant, and a stored instant the field still shows unchanged', () => {
    const values = { ...form({ importOldMessages: toLocalInput(stored.importOldMessages), importRecentMessages: local(new Date(2026, 2, 2, 9, 15)) }), importOldMessagesGroups: true, closedTicketsPostImported: false };
    expect(importBody(values, stored, true)).toEqual({
      enableImportMessage: true,
      importOldMessages: '2025-01-01T08:00:42.000Z',
      importRecentMessages: new Date(2026, 2, 2, 9, 15).toISOString(),
      importOldMessagesGroups: true,
      closedTicketsPostImported: false,
      queueIdImportMessages: 4,
    });
    expect(importInstant('', null)).toBeNull();
  });

  it('unlinks only a CONNECTED connection whose import, on, changes', () => {
    const same = importBody({ ...form({ importOldMessages: toLocalInput(stored.importOldMessages), importRecentMessages: toLocalInput(stored.importRecentMessages) }), importOldMessagesGroups: false, closedTicketsPostImported: false }, stored, true);
    expect(savingUnlinks(same, stored)).toBe(false);
    const groups = { ...same, importOldMessagesGroups: true };
    expect(savingUnlinks(groups, stored)).toBe(true);
    expect(savingUnlinks({ ...same, queueIdImportMessages: 5 }, stored)).toBe(true);
    expect(savingUnlinks(groups, { ...stored, status: 'qrcode' })).toBe(false);
    expect(savingUnlinks(groups, null)).toBe(false);
    // Turned off: nothing to import, nothing to relink for.
    expect(savingUnlinks({ ...same, enableImportMessage: false }, stored)).toBe(false);
    // Turned on for a connection that did not import.
    const plain = connectionSchema.parse(connectionFixture(2));
    expect(savingUnlinks(same, plain)).toBe(true);
  });
});

describe('import progress', () => {
  it('is a whole percentage, never 100 before the end', () => {
    expect(importPercent({ done: -1, total: 0 })).toBe(0);
    expect(importPercent({ done: 0, total: 10 })).toBe(0);
    expect(importPercent({ done: 1, total: 3 })).toBe(33);
    expect(importPercent({ done: 199, total: 200 })).toBe(99);
    expect(importPercent({ done: 200, total: 200 })).toBe(100);
    expect(importPercent({ done: 5, total: 0 })).toBe(0);
  });
});
