import { describe, expect, it } from 'vitest';
import { mockServer, reply } from '../../../test/server';
import { messageFixture } from '../../../test/inbox-fixtures';
import { loadAllMessages, pdfFileName, type ExportProgress } from './exportTicket';

describe('loadAllMessages', () => {
  it('follows the cursor until hasMore is false and returns every message oldest first, with progress', async () => {
    const server = mockServer({
      'GET /messages/:uuid': ({ query }) => {
        switch (query.get('cursor')) {
          case null:
            return { messages: [messageFixture(5), messageFixture(6)], hasMore: true, nextCursor: 'c1', count: 6 };
          case 'c1':
            // The page boundary moved: message 5 comes again and is kept once.
            return { messages: [messageFixture(3), messageFixture(4), messageFixture(5)], hasMore: true, nextCursor: 'c2', count: null };
          default:
            return { messages: [messageFixture(1), messageFixture(2)], hasMore: false, nextCursor: null, count: null };
        }
      },
    });
    const progress: ExportProgress[] = [];
    const messages = await loadAllMessages('uuid-7', (p) => progress.push(p));
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(progress).toEqual([
      { loaded: 2, total: 6 },
      { loaded: 4, total: 6 },
      { loaded: 6, total: 6 },
    ]);
    const requests = server.find('GET', '/messages/uuid-7');
    expect(requests.map((r) => r.query.get('cursor'))).toEqual([null, 'c1', 'c2']);
    expect(requests[0].query.get('pageNumber')).toBe('1');
  });

  it('works without a count and stops on an error', async () => {
    mockServer({ 'GET /messages/:uuid': () => ({ messages: [messageFixture(1)], hasMore: false }) });
    const progress: ExportProgress[] = [];
    expect((await loadAllMessages('uuid-7', (p) => progress.push(p))).map((m) => m.id)).toEqual([1]);
    expect(progress).toEqual([{ loaded: 1, total: null }]);

    mockServer({ 'GET /messages/:uuid': () => reply(404, { error: 'ERR_NO_TICKET_FOUND', message: 'no' }) });
    await expect(loadAllMessages('uuid-7', () => undefined)).rejects.toMatchObject({ code: 'ERR_NO_TICKET_FOUND' });
  });

  it('names the file after the ticket', () => {
    expect(pdfFileName(42)).toBe('ticket-42.pdf');
  });
});
