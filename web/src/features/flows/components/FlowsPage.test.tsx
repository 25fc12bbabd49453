import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_PERMISSIONS, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { stubObjectUrls } from '../../../test/object-urls';
import { lastSocket } from '../../../test/socket';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const FLOW_ADMIN = [...ADMIN_PERMISSIONS, 'menu:flowbuilders'];

const flow = (id: number, overrides: Record<string, unknown> = {}) => ({ id, name: `Fluxo ${id}`, active: true, updatedAt: '2026-11-01T10:00:00Z', publishedVersion: null, hasDraft: true, ...overrides });

function server(routes: Record<string, MockHandler> = {}, permissions = FLOW_ADMIN) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ permissions }),
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/flowbuilders', () => {
  it('lists flows with their status, loads the next page near the bottom and searches lower-cased after 500 ms', async () => {
    const api = server({
      'GET /flowbuilder': ({ query }) => {
        if (query.get('searchParam')) return { flows: [flow(99, { name: 'Boas-vindas' })], hasMore: false, count: 1 };
        const page = Number(query.get('pageNumber'));
        return { flows: Array.from({ length: 20 }, (_, i) => flow((page - 1) * 20 + i + 1, i === 1 ? { active: false } : {})), hasMore: page < 2, count: 40 };
      },
    });
    renderApp('/flowbuilders');
    expect(await screen.findByText('Fluxos de conversa')).toBeInTheDocument();
    expect(await screen.findByTestId('flows-row-1')).toHaveTextContent('Ativo');
    expect(screen.getByTestId('flows-row-2')).toHaveTextContent('Desativado');
    const container = screen.getByTestId('flows-table-container');
    Object.defineProperty(container, 'scrollHeight', { configurable: true, value: 1000 });
    Object.defineProperty(container, 'clientHeight', { configurable: true, value: 400 });
    container.scrollTop = 550;
    fireEvent.scroll(container);
    expect(await screen.findByTestId('flows-row-21')).toBeInTheDocument();
    expect(api.find('GET', '/flowbuilder').map((r) => r.query.get('pageNumber'))).toEqual(['1', '2']);

    const user = userEvent.setup();
    await user.type(screen.getByTestId('flows-search'), 'BOAS');
    expect(await screen.findByTestId('flows-row-99', {}, { timeout: 2000 })).toBeInTheDocument();
    expect(api.find('GET', '/flowbuilder').filter((r) => r.query.get('searchParam')).map((r) => r.query.get('searchParam'))).toEqual(['boas']);
  });

  it('validates the name with the spec texts, then creates the flow', async () => {
    const api = server({
      'GET /flowbuilder': () => ({ flows: [], hasMore: false, count: 0 }),
      'POST /flowbuilder': ({ body }) => reply(201, flow(7, body as Record<string, unknown>)),
    });
    renderApp('/flowbuilders');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('flows-add'));
    const dialog = await screen.findByTestId('flow-name-dialog');
    expect(within(dialog).getByText('Adicionar Fluxo')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('flow-name-save'));
    expect(await within(dialog).findByText('Digite um nome!')).toBeInTheDocument();
    await user.type(within(dialog).getByTestId('flow-name-input'), 'a');
    await user.click(within(dialog).getByTestId('flow-name-save'));
    expect(await within(dialog).findByText('Muito curto!')).toBeInTheDocument();
    await user.type(within(dialog).getByTestId('flow-name-input'), 'b'.repeat(50));
    await user.click(within(dialog).getByTestId('flow-name-save'));
    expect(await within(dialog).findByText('Muito longo!')).toBeInTheDocument();
    await user.clear(within(dialog).getByTestId('flow-name-input'));
    await user.type(within(dialog).getByTestId('flow-name-input'), 'Atendimento');
    await user.click(within(dialog).getByTestId('flow-name-save'));
    await waitFor(() => expect(screen.queryByTestId('flow-name-dialog')).not.toBeInTheDocument());
    expect(api.find('POST', '/flowbuilder')[0].body).toEqual({ name: 'Atendimento' });
  });

  it('renames, duplicates and deletes through the actions menu, and refreshes on company-{id}-flowbuilder', async () => {
    let flows = [flow(1), flow(2)];
    const api = server({
      'GET /flowbuilder': () => ({ flows, hasMore: false, count: flows.length }),
      'PUT /flowbuilder': ({ body }) => flow(1, { name: (body as { name: string }).name }),
      'POST /flowbuilder/duplicate': () => {
        flows = [...flows, flow(3, { name: 'Fluxo 1 - cópia' })];
        return reply(201, flows[2]);
      },
      'DELETE /flowbuilder/:id': () => {
        flows = flows.filter((f) => f.id !== 2);
        return undefined;
      },
    });
    renderApp('/flowbuilders');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('flows-menu-1'));
    await user.click(await screen.findByTestId('flows-action-rename'));
    const dialog = await screen.findByTestId('flow-name-dialog');
    expect(within(dialog).getByText('Editar Fluxo')).toBeInTheDocument();
    await user.clear(within(dialog).getByTestId('flow-name-input'));
    await user.type(within(dialog).getByTestId('flow-name-input'), 'Vendas');
    await user.click(within(dialog).getByTestId('flow-name-save'));
    await waitFor(() => expect(api.find('PUT', '/flowbuilder')).toHaveLength(1));
    expect(api.find('PUT', '/flowbuilder')[0].body).toEqual({ flowId: 1, name: 'Vendas' });

    await user.click(screen.getByTestId('flows-menu-1'));
    await user.click(await screen.findByTestId('flows-action-duplicate'));
    expect(await screen.findByText('Fluxo duplicado com sucesso')).toBeInTheDocument();
    expect(api.find('POST', '/flowbuilder/duplicate')[0].body).toEqual({ flowId: 1 });
    expect(await screen.findByTestId('flows-row-3')).toHaveTextContent('Fluxo 1 - cópia');

    await user.click(screen.getByTestId('flows-menu-2'));
    await user.click(await screen.findByTestId('flows-action-delete'));
    expect(await screen.findByText('Excluir o fluxo Fluxo 2?')).toBeInTheDocument();
    await user.click(screen.getByTestId('flows-delete-dialog-confirm'));
    expect(await screen.findByText('Fluxo excluído com sucesso')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('flows-row-2')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/flowbuilder/2')).toHaveLength(1);

    flows = [...flows, flow(4, { name: 'Novo' })];
    act(() => lastSocket().serverEmit('company-1-flowbuilder', { action: 'create', flow: flows[flows.length - 1] }));
    expect(await screen.findByTestId('flows-row-4')).toHaveTextContent('Novo');
  });

  it('imports a .json file', async () => {
    const api = server({
      'GET /flowbuilder': () => ({ flows: [], hasMore: false, count: 0 }),
      'POST /flowbuilder/import': () => reply(201, flow(9)),
    });
    renderApp('/flowbuilders');
    const file = { format: 'chatflow-flow', version: 1, name: 'Importado', flow: { nodes: [], connections: [] } };
    const input = await screen.findByTestId('flows-import-file');
    const user = userEvent.setup();
    await user.upload(input, new File([JSON.stringify(file)], 'fluxo.json', { type: 'application/json' }));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/import')).toHaveLength(1));
    expect(api.find('POST', '/flowbuilder/import')[0].body).toEqual(file);
  });

  it('leads to the phrase campaigns', async () => {
    server({ 'GET /flowbuilder': () => ({ flows: [], hasMore: false }), 'GET /flowcampaign': () => ({ flow: [] }) });
    renderApp('/flowbuilders');
    await userEvent.setup().click(await screen.findByTestId('flows-phrase-lists'));
    expect(await screen.findByTestId('phrase-lists-page')).toBeInTheDocument();
  });

  it('is not open to a plain user', async () => {
    server({ 'GET /flowbuilder': () => ({ flows: [], hasMore: false }) }, ['menu:tickets']);
    renderApp('/flowbuilders');
    expect(await screen.findByText('Oops! Acesso Negado!')).toBeInTheDocument();
  });

  it('exports a flow as a JSON download and explains a refused delete', async () => {
    const urls = stubObjectUrls();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const api = server({
      'GET /flowbuilder': () => ({ flows: [flow(1, { name: 'Boas-vindas' })], hasMore: false, count: 1 }),
      'GET /flowbuilder/:id/export': () => new Response(JSON.stringify({ format: 'chatflow-flow', version: 1 }), { status: 200 }),
      'DELETE /flowbuilder/:id': () => reply(409, { error: 'ERR_FLOW_IN_USE', message: 'in use' }),
    });
    try {
      renderApp('/flowbuilders');
      const user = userEvent.setup();
      await user.click(await screen.findByTestId('flows-menu-1'));
      await user.click(await screen.findByTestId('flows-action-export'));
      await waitFor(() => expect(click).toHaveBeenCalledTimes(1));
      expect(api.find('GET', '/flowbuilder/1/export')).toHaveLength(1);
      expect((click.mock.instances[0] as unknown as HTMLAnchorElement).download).toBe('Boas-vindas.json');
      expect(urls.createObjectURL).toHaveBeenCalledTimes(1);

      await user.click(screen.getByTestId('flows-menu-1'));
      await user.click(await screen.findByTestId('flows-action-delete'));
      await user.click(await screen.findByTestId('flows-delete-dialog-confirm'));
      expect(await screen.findByText('Este fluxo está em uso por uma conexão ou campanha e não pode ser excluído.')).toBeInTheDocument();
      expect(screen.getByTestId('flows-row-1')).toBeInTheDocument();
    } finally {
      click.mockRestore();
      urls.restore();
    }
  });

  it("shows the server's name error on the field", async () => {
    server({
      'GET /flowbuilder': () => ({ flows: [], hasMore: false, count: 0 }),
      'POST /flowbuilder': () => reply(422, { error: 'ERR_VALIDATION', message: 'invalid', fields: [{ field: 'name', code: 'ERR_FLOW_NAME_INVALID' }] }),
    });
    renderApp('/flowbuilders');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('flows-add'));
    const dialog = await screen.findByTestId('flow-name-dialog');
    await user.type(within(dialog).getByTestId('flow-name-input'), 'Atendimento');
    await user.click(within(dialog).getByTestId('flow-name-save'));
    expect(await within(dialog).findByText('O nome deve ter entre 2 e 50 caracteres.')).toBeInTheDocument();
  });
});
