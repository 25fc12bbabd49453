import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { ADMIN_INBOX_PERMISSIONS, adminAuth } from '../../../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

/** The signed-in user of `adminAuth` is user 1. */
const quick = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  shortcode: `atalho${id}`,
  message: `Mensagem ${id}`,
  geral: false,
  visao: true,
  status: true,
  userId: 1,
  mediaPath: null,
  mediaName: null,
  isMedia: false,
  ...overrides,
});

function server(routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => adminAuth([...ADMIN_INBOX_PERMISSIONS, 'menu:quick-messages']),
    'GET /whatsapp': () => [],
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/quick-messages', () => {
  it('lists shortcodes, the file name or "Sem anexo", a check when shared, and searches', async () => {
    const api = server({
      'GET /quick-messages': ({ query }) =>
        query.get('searchParam')
          ? { records: [quick(9, { shortcode: 'promo' })], hasMore: false, count: 1 }
          : { records: [quick(1, { geral: true }), quick(2, { isMedia: true, mediaName: 'tabela.pdf', mediaPath: '/quick-messages/2/media' })], hasMore: false, count: 2 },
    });
    renderApp('/quick-messages');
    const first = await screen.findByTestId('quick-messages-row-1');
    expect(first).toHaveTextContent('atalho1');
    expect(first).toHaveTextContent('Sem anexo');
    expect(within(first).getByTestId('quick-messages-shared-1')).toBeInTheDocument();
    const second = screen.getByTestId('quick-messages-row-2');
    expect(second).toHaveTextContent('tabela.pdf');
    expect(within(second).queryByTestId('quick-messages-shared-2')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByTestId('quick-messages-search'), 'pro');
    expect(await screen.findByTestId('quick-messages-row-9', {}, { timeout: 2000 })).toBeInTheDocument();
    expect(api.find('GET', '/quick-messages').map((r) => r.query.get('searchParam'))).toEqual(['', 'pro']);
  });

  it('creates one: "Obrigatório" without a shortcode, then posts and uploads the attached file', async () => {
    const api = server({
      'GET /quick-messages': () => ({ records: [], hasMore: false, count: 0 }),
      'POST /quick-messages': ({ body }) => quick(5, body as Record<string, unknown>),
      'POST /quick-messages/:id/media-upload': () => quick(5, { isMedia: true, mediaName: 'foto.png' }),
    });
    renderApp('/quick-messages');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('quick-messages-add'));
    const dialog = await screen.findByTestId('quick-message-dialog');
    await user.click(within(dialog).getByTestId('quick-message-save'));
    expect(await within(dialog).findAllByText('Obrigatório')).not.toHaveLength(0);
    expect(api.find('POST', '/quick-messages')).toHaveLength(0);
    await user.type(within(dialog).getByTestId('quick-message-shortcode'), 'foto');
    await user.click(within(dialog).getByTestId('quick-message-geral'));
    await user.upload(within(dialog).getByTestId('quick-message-file'), new File(['png'], 'foto.png', { type: 'image/png' }));
    expect(within(dialog).getByTestId('quick-message-file-name')).toHaveTextContent('foto.png');
    await user.click(within(dialog).getByTestId('quick-message-save'));
    await waitFor(() => expect(screen.queryByTestId('quick-message-dialog')).not.toBeInTheDocument());
    expect(api.find('POST', '/quick-messages')[0].body).toEqual({ shortcode: 'foto', message: '', geral: true, isMedia: true });
    const form = api.find('POST', '/quick-messages/5/media-upload')[0].body as FormData;
    expect(form.get('typeArch')).toBe('quickMessage');
    expect((form.get('file') as File).name).toBe('foto.png');
  });

  it("disables every field of someone else's private message, and only sharing of their shared one", async () => {
    server({
      'GET /quick-messages': () => ({ records: [quick(1, { userId: 8 }), quick(2, { userId: 8, geral: true }), quick(3)], hasMore: false, count: 3 }),
    });
    renderApp('/quick-messages');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('quick-messages-edit-1'));
    let dialog = await screen.findByTestId('quick-message-dialog');
    expect(within(dialog).getByTestId('quick-message-read-only')).toBeInTheDocument();
    expect(within(dialog).getByTestId('quick-message-shortcode')).toBeDisabled();
    expect(within(dialog).getByTestId('quick-message-message')).toBeDisabled();
    expect(within(dialog).getByTestId('quick-message-geral')).toBeDisabled();
    expect(within(dialog).getByTestId('quick-message-attach')).toBeDisabled();
    expect(within(dialog).getByTestId('quick-message-save')).toBeDisabled();
    await user.click(within(dialog).getByTestId('quick-message-cancel'));
    await waitFor(() => expect(screen.queryByTestId('quick-message-dialog')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('quick-messages-edit-2'));
    dialog = await screen.findByTestId('quick-message-dialog');
    expect(within(dialog).getByTestId('quick-message-shortcode')).toBeEnabled();
    expect(within(dialog).getByTestId('quick-message-geral')).toBeDisabled();
    expect(within(dialog).getByTestId('quick-message-save')).toBeEnabled();
    await user.click(within(dialog).getByTestId('quick-message-cancel'));
    await waitFor(() => expect(screen.queryByTestId('quick-message-dialog')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('quick-messages-edit-3'));
    dialog = await screen.findByTestId('quick-message-dialog');
    expect(within(dialog).queryByTestId('quick-message-read-only')).not.toBeInTheDocument();
    expect(within(dialog).getByTestId('quick-message-geral')).toBeEnabled();
  });

  it('edits, removes the file, deletes after confirmation and refreshes on company-{id}-quickmessage', async () => {
    let records = [quick(1, { isMedia: true, mediaName: 'a.pdf' }), quick(2)];
    const api = server({
      'GET /quick-messages': () => ({ records, hasMore: false, count: records.length }),
      'PUT /quick-messages/:id': ({ body }) => quick(1, { ...(body as object), isMedia: true, mediaName: 'a.pdf' }),
      'DELETE /quick-messages/:id/media-upload': () => quick(1),
      'DELETE /quick-messages/:id': () => {
        records = records.filter((r) => r.id !== 2);
        return undefined;
      },
    });
    renderApp('/quick-messages');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('quick-messages-edit-1'));
    const dialog = await screen.findByTestId('quick-message-dialog');
    await user.clear(within(dialog).getByTestId('quick-message-message'));
    await user.type(within(dialog).getByTestId('quick-message-message'), 'Novo texto');
    const chip = within(dialog).getByTestId('quick-message-file-name');
    await user.click(within(chip).getByTestId('CancelIcon'));
    await user.click(within(dialog).getByTestId('quick-message-save'));
    await waitFor(() => expect(api.find('DELETE', '/quick-messages/1/media-upload')).toHaveLength(1));
    expect(api.find('PUT', '/quick-messages/1')[0].body).toEqual({ shortcode: 'atalho1', message: 'Novo texto', geral: false, isMedia: false });

    await user.click(screen.getByTestId('quick-messages-delete-2'));
    expect(await screen.findByText('Excluir a resposta rápida atalho2?')).toBeInTheDocument();
    await user.click(screen.getByTestId('quick-messages-delete-dialog-confirm'));
    await waitFor(() => expect(screen.queryByTestId('quick-messages-row-2')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/quick-messages/2')).toHaveLength(1);

    records = [...records, quick(4, { shortcode: 'nova' })];
    act(() => lastSocket().serverEmit('company-1-quickmessage', { action: 'create', seq: 5, record: quick(4) }));
    expect(await screen.findByTestId('quick-messages-row-4')).toHaveTextContent('nova');
  });
});
