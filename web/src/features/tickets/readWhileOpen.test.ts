import { describe, expect, it } from 'vitest';
import { messageFixture, ticketFixture } from '../../test/inbox-fixtures';
import { isIncomingMessageFor } from './readWhileOpen';

describe('isIncomingMessageFor', () => {
  const event = (overrides: Record<string, unknown> = {}, action = 'create') => ({ action, ticket: ticketFixture(7), message: messageFixture(1, overrides) });

  it('is a new contact message in the ticket', () => {
    expect(isIncomingMessageFor(event(), 7)).toBe(true);
    expect(isIncomingMessageFor({ action: 'create', ticket: ticketFixture(7), message: { ...messageFixture(1), ticketId: undefined } }, 7)).toBe(true);
  });

  it('is not an own message, an update, another ticket or a malformed payload', () => {
    expect(isIncomingMessageFor(event({ fromMe: true }), 7)).toBe(false);
    expect(isIncomingMessageFor(event({}, 'update'), 7)).toBe(false);
    expect(isIncomingMessageFor(event({}, 'delete'), 7)).toBe(false);
    expect(isIncomingMessageFor(event(), 8)).toBe(false);
    expect(isIncomingMessageFor({ action: 'create', ticket: ticketFixture(8), message: { ...messageFixture(1), ticketId: undefined } }, 7)).toBe(false);
    expect(isIncomingMessageFor({ action: 'create' }, 7)).toBe(false);
  });
});
