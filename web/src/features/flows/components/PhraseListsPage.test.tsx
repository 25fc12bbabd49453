import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_PERMISSIONS, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const FLOW_ADMIN = [...ADMIN_PERMISSIONS, 'menu:flowbuilders', 'contacts-page:deleteContact'];

const campaign = (id: number, overrides: Record<string, unknown> = {}) => ({ id, name: `Campanha ${id}`, flowId: 1, whatsappId: 2, phrase: 'oi', status: true, ...overrides });

function server(routes: Record<string, MockHandler> = {}, permissions = FLOW_ADMIN) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ permissions }),
    'GET /whatsapp': () => [
      { id: 2, name: 'Comercial', status: 'CONNECTED' },
      { id: 3, name: 'Suporte', status: 'DISCONNECTED' },
    ],
    'GET /flowbuilder': ({ query }) => ({
      flows: [
        { id: 1, name: 'Boas-vindas', active: true },
        { id: 4, name: 'Promoção', active: true },
      ].filter((f) => f.name.toLowerCase().includes(query.get('searchParam') ?? '')),
      hasMore: false,
    }),
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/phrase-lists', () => {
  it('lists campaigns with their status', async () => {
    server({ 'GET /flowcampaign': () => ({ flow: [campaign(1), campaign(2, { status: false })] }) });
    renderApp('/phrase-lists');
    expect(await screen.findByTestId('phrase-lists-row-1')).toHaveTextContent('Ativo');
    expect(screen.getByTestId('phrase-lists-row-2')).toHaveTextContent('Desativado');
    expect(screen.getByRole('heading', { name: 'Campanhas' })).toBeInTheDocument();
  });

  it('flags name, flow and phrase and sends nothing; a missing connection alone does not block; then posts the body', async () => {
    const api = server({
      'GET /flowcampaign': () => ({ flow: [] }),
      'POST /flowcampaign': ({ body }) => reply(201, { id: 9, status: true, ...(body as object) }),
    });
    renderApp('/phrase-lists');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('phrase-lists-add'));
    const dialog = await screen.findByTestId('phrase-dialog');
    expect(within(dialog).getByText('Nova campanha com fluxo por frase')).toBeInTheDocument();
    expect(within(dialog).getByTestId('phrase-status')).toBeChecked();
    await user.click(within(dialog).getByTestId('phrase-save'));
    // Name, flow and phrase, plus the connection (flagged only).
    await waitFor(() => expect(within(dialog).getAllByText('Obrigatório')).toHaveLength(4));
    expect(api.find('POST', '/flowcampaign')).toHaveLength(0);

    await user.type(within(dialog).getByTestId('phrase-name'), 'Promo de natal');
    await user.type(within(dialog).getByTestId('phrase-flow'), 'prom');
    await user.click(await screen.findByTestId('phrase-flow-option-4', {}, { timeout: 3000 }));
    await user.type(within(dialog).getByTestId('phrase-phrase'), 'natal');
    await user.click(within(dialog).getByTestId('phrase-save'));
    await waitFor(() => expect(screen.queryByTestId('phrase-dialog')).not.toBeInTheDocument());
    expect(api.find('POST', '/flowcampaign')[0].body).toEqual({ name: 'Promo de natal', flowId: 4, whatsappId: null, phrase: 'natal' });
    expect(await screen.findByText('Frase criada com sucesso!')).toBeInTheDocument();
  });

  it('names each connection with its status in words, as the connections page does, in the chosen language', async () => {
    server({
      'GET /flowcampaign': () => ({ flow: [] }),
      'GET /whatsapp': () => [
        { id: 2, name: 'Comercial', status: 'CONNECTED' },
        { id: 3, name: 'Suporte', status: 'DISCONNECTED' },
        { id: 4, name: 'Nova', status: 'SOMETHING_NEW' },
      ],
    });
    renderApp('/phrase-lists');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('phrase-lists-add'));
    await user.click(await screen.findByTestId('phrase-connection'));
    expect(await screen.findByTestId('phrase-connection-option-2')).toHaveTextContent('Comercial (Conectado)');
    expect(screen.getByTestId('phrase-connection-option-3')).toHaveTextContent('Suporte (Desconectado)');
    // A status the app has no words for is shown as the server sent it.
    expect(screen.getByTestId('phrase-connection-option-4')).toHaveTextContent('Nova (SOMETHING_NEW)');
    await user.keyboard('{Escape}');
    await act(() => setLanguage('tr'));
    await user.click(screen.getByTestId('phrase-connection'));
    expect(await screen.findByTestId('phrase-connection-option-2')).toHaveTextContent('Comercial (Bağlandı)');
  });

  it('edits with the status and deletes after confirmation; no delete without contacts-page:deleteContact', async () => {
    let list = [campaign(1)];
    const api = server({
      'GET /flowcampaign': () => ({ flow: list }),
      'PUT /flowcampaign': ({ body }) => body,
      'DELETE /flowcampaign/:id': () => {
        list = [];
        return undefined;
      },
    });
    renderApp('/phrase-lists');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('phrase-lists-edit-1'));
    const dialog = await screen.findByTestId('phrase-dialog');
    expect(within(dialog).getByText('Editar campanha com fluxo por frase')).toBeInTheDocument();
    expect(await within(dialog).findByDisplayValue('Boas-vindas')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('phrase-status'));
    await user.click(within(dialog).getByTestId('phrase-save'));
    await waitFor(() => expect(api.find('PUT', '/flowcampaign')).toHaveLength(1));
    expect(api.find('PUT', '/flowcampaign')[0].body).toEqual({ id: 1, name: 'Campanha 1', flowId: 1, whatsappId: 2, phrase: 'oi', status: false });
    expect(await screen.findByText('Frase alterada com sucesso!')).toBeInTheDocument();

    await user.click(screen.getByTestId('phrase-lists-delete-1'));
    await user.click(await screen.findByTestId('phrase-lists-delete-dialog-confirm'));
    expect(await screen.findByText('Frase deletada')).toBeInTheDocument();
    expect(api.find('DELETE', '/flowcampaign/1')).toHaveLength(1);
  });

  it('hides delete from roles without contacts-page:deleteContact', async () => {
    server({ 'GET /flowcampaign': () => ({ flow: [campaign(1)] }) }, [...ADMIN_PERMISSIONS, 'menu:flowbuilders']);
    renderApp('/phrase-lists');
    expect(await screen.findByTestId('phrase-lists-edit-1')).toBeInTheDocument();
    expect(screen.queryByTestId('phrase-lists-delete-1')).not.toBeInTheDocument();
  });

  it('refreshes on company-{id}-flowcampaign', async () => {
    let list = [campaign(1)];
    server({ 'GET /flowcampaign': () => ({ flow: list }) });
    renderApp('/phrase-lists');
    await screen.findByTestId('phrase-lists-row-1');
    list = [campaign(1), campaign(5, { name: 'Nova' })];
    act(() => lastSocket().serverEmit('company-1-flowcampaign', { action: 'create', flow: list[1] }));
    expect(await screen.findByTestId('phrase-lists-row-5')).toHaveTextContent('Nova');
  });
});
