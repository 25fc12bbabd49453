import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../../lib/i18n';
import { renderApp } from '../../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../../test/server';
import { stubObjectUrls } from '../../../../test/object-urls';
import { lastSocket } from '../../../../test/socket';
import { inboxAuth, messageFixture, ticketFixture } from '../../../../test/inbox-fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../../test/socket')).ioMock }));

const NOT_DELIVERED = 'Não entregue: o WhatsApp recebeu a mensagem, mas o celular do contato não confirmou há mais de 10 minutos';

function ticketServer(routes: Record<string, MockHandler> = {}, ticket = ticketFixture(7)) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => inboxAuth(),
    'GET /tags/list': () => [],
    'GET /users/list': () => [],
    'GET /whatsapp': () => [],
    'GET /tickets': () => ({ tickets: [ticket], hasMore: false, count: 1, nextCursor: null }),
    'GET /tickets/u/:uuid': () => ticket,
    ...routes,
  });
}

let urls: ReturnType<typeof stubObjectUrls>;
beforeEach(async () => {
  urls = stubObjectUrls();
  await setLanguage('pt');
});
afterEach(() => urls.restore());

describe('a message not delivered', () => {
  it('shows the warning next to the ticks of an own message flagged notDelivered, and nowhere else', async () => {
    ticketServer({
      'GET /messages/:uuid': () => ({
        messages: [
          messageFixture(1, { fromMe: true, ack: 1, userId: 1, deliveryIssue: 'notDelivered' }),
          messageFixture(2, { fromMe: true, ack: 1, userId: 1, deliveryIssue: null }),
          // An older server: no field at all.
          messageFixture(3, { fromMe: true, ack: 2, userId: 1 }),
          // Only own messages are flagged; a contact's is never marked.
          messageFixture(4, { deliveryIssue: 'notDelivered' }),
          // A value this version does not know reads as none.
          messageFixture(5, { fromMe: true, ack: 1, userId: 1, deliveryIssue: 'somethingElse' }),
        ],
        hasMore: false,
        nextCursor: null,
      }),
    });
    renderApp('/tickets/uuid-7');
    const flagged = await screen.findByTestId('message-1');
    const mark = within(flagged).getByTestId('message-delivery-issue-1');
    expect(mark).toHaveAttribute('aria-label', NOT_DELIVERED);
    // Beside the one tick.
    expect(within(flagged).getByTestId('message-ack')).toHaveAttribute('data-state', 'sent');
    for (const id of [2, 3, 4, 5]) {
      expect(screen.getByTestId(`message-${id}`)).toBeInTheDocument();
      expect(screen.queryByTestId(`message-delivery-issue-${id}`)).not.toBeInTheDocument();
    }
    // The tooltip explains it.
    const user = userEvent.setup();
    await user.hover(mark);
    expect(await screen.findByRole('tooltip')).toHaveTextContent(NOT_DELIVERED);
  });

  it('follows the live updates: flagged, then cleared by a later receipt', async () => {
    ticketServer({
      'GET /messages/:uuid': () => ({ messages: [messageFixture(1, { fromMe: true, ack: 1, userId: 1 })], hasMore: false, nextCursor: null }),
    });
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    expect(screen.queryByTestId('message-delivery-issue-1')).not.toBeInTheDocument();
    const update = (overrides: Record<string, unknown>) =>
      act(() =>
        lastSocket().serverEmit('company-1-appMessage', { action: 'update', seq: 1, ticket: ticketFixture(7), message: messageFixture(1, { fromMe: true, userId: 1, ...overrides }) }),
      );
    update({ ack: 1, deliveryIssue: 'notDelivered' });
    expect(await screen.findByTestId('message-delivery-issue-1')).toBeInTheDocument();
    update({ ack: 2, deliveryIssue: null });
    await waitFor(() => expect(screen.queryByTestId('message-delivery-issue-1')).not.toBeInTheDocument());
    expect(within(screen.getByTestId('message-1')).getByTestId('message-ack')).toHaveAttribute('data-state', 'delivered');
  });
});
