import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_PERMISSIONS, authFixture } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { imageResponse, stubObjectUrls } from '../../../test/object-urls';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { NEW_NODE_SIZE, NODE_GAP } from '../utils/graph';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const FLOW_ADMIN = [...ADMIN_PERMISSIONS, 'menu:flowbuilders'];

const GRAPH = {
  nodes: [
    { id: 'oldstart', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Inicio do fluxo' } },
    { id: 'menu1', type: 'menu', position: { x: 200, y: 0 }, data: { message: 'Escolha', arrayOption: [{ number: 1, value: 'Vendas' }, { number: 2, value: 'Suporte' }] } },
    { id: 'ticket1', type: 'ticket', position: { x: 400, y: 0 }, data: { queue: { id: 3, name: 'Suporte' } } },
    { id: 'rand1', type: 'randomizer', position: { x: 400, y: 200 }, data: { percent: 30 } },
  ],
  connections: [
    { id: 'e1', source: 'oldstart', target: 'menu1' },
    { id: 'e2', source: 'menu1', target: 'ticket1', sourceHandle: 'a2' },
    { id: 'e3', source: 'menu1', target: 'rand1', sourceHandle: 'a1' },
  ],
};

function server(routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => authFixture({ permissions: FLOW_ADMIN }),
    'GET /flowbuilder/flow/:id': () => ({ flow: { id: 5, name: 'Atendimento', active: true, flow: GRAPH, version: null, draft: true } }),
    'GET /queue': () => [
      { id: 3, name: 'Suporte', color: '#ff0000' },
      { id: 4, name: 'Vendas', color: '#00ff00' },
    ],
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
  // React Flow measures with ResizeObserver and reads transforms with DOMMatrixReadOnly: jsdom has
  // neither. Stubbed before each test since the shared afterEach unstubs globals.
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  vi.stubGlobal('ResizeObserver', ResizeObserverStub);
  vi.stubGlobal('DOMMatrixReadOnly', class {
    m22 = 1;
  });
});

async function openEditor() {
  renderApp('/flowbuilder/5');
  return screen.findByTestId('flow-node-menu1', {}, { timeout: 5000 });
}

/** Opens the add-node menu; answers its entry for `type`. */
async function addButton(type: string) {
  fireEvent.click(screen.getByTestId('flow-editor-add'));
  return screen.findByTestId(`flow-editor-add-${type}`);
}

describe('/flowbuilder/:id', () => {
  it('shows a spinner, fetches after the delay and loads the graph into React Flow nodes with their handles', async () => {
    const api = server();
    renderApp('/flowbuilder/5');
    expect(await screen.findByTestId('flow-editor-loading')).toBeInTheDocument();
    const menu = await screen.findByTestId('flow-node-menu1', {}, { timeout: 5000 });
    expect(api.find('GET', '/flowbuilder/flow/5')).toHaveLength(1);
    expect(screen.getByText('Desenhe seu fluxo')).toBeInTheDocument();
    expect(screen.getByText('Não se esqueça de salvar seu fluxo!')).toBeInTheDocument();
    expect(menu).toHaveTextContent('Escolha');
    expect(within(menu).getByTestId('flow-handle-a1')).toHaveTextContent('[1] Vendas');
    expect(within(menu).getByTestId('flow-handle-a2')).toHaveTextContent('[2] Suporte');
    expect(screen.getByTestId('flow-node-ticket1')).toHaveTextContent('Suporte');
    const rand = screen.getByTestId('flow-node-rand1');
    expect(within(rand).getByTestId('flow-handle-a')).toHaveTextContent('A · 30%');
    expect(within(rand).getByTestId('flow-handle-b')).toHaveTextContent('B · 70%');
    expect(screen.getByTestId('flow-simulate')).toBeEnabled();
  });

  it('replaces the old start when a start is added, and save sends {idFlow, nodes, connections} with the handles', async () => {
    const api = server({ 'POST /flowbuilder/flow': () => ({ flow: { id: 5, name: 'Atendimento', active: true }, issues: [] }) });
    await openEditor();
    fireEvent.click(await addButton('start'));
    await waitFor(() => expect(screen.queryByTestId('flow-node-oldstart')).not.toBeInTheDocument());
    expect(screen.getByTestId('flow-node-1')).toHaveAttribute('data-node-type', 'start');
    expect(document.querySelectorAll('[data-node-type="start"]')).toHaveLength(1);

    await userEvent.setup().click(screen.getByTestId('flow-editor-save'));
    expect(await screen.findByText('Fluxo salvo com sucesso')).toBeInTheDocument();
    const body = api.find('POST', '/flowbuilder/flow')[0].body as { idFlow: number; nodes: { id: string; type: string }[]; connections: unknown[] };
    expect(body.idFlow).toBe(5);
    expect(body.nodes.map((n) => n.id)).toEqual(['menu1', 'ticket1', 'rand1', '1']);
    expect(body.connections).toEqual([
      { id: 'e2', source: 'menu1', target: 'ticket1', sourceHandle: 'a2' },
      { id: 'e3', source: 'menu1', target: 'rand1', sourceHandle: 'a1' },
    ]);
  });

  it('validates node dialogs with the spec texts: interval, message, ticket', async () => {
    const api = server({ 'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }) });
    await openEditor();
    const user = userEvent.setup();

    fireEvent.click(await addButton('interval'));
    let dialog = await screen.findByTestId('node-dialog-interval');
    await user.type(within(dialog).getByTestId('node-interval-sec'), '121');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Máximo de tempo atingido 120 segundos')).toBeInTheDocument();
    await user.clear(within(dialog).getByTestId('node-interval-sec'));
    await user.type(within(dialog).getByTestId('node-interval-sec'), '0');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Adicione o valor de intervalo')).toBeInTheDocument();
    await user.clear(within(dialog).getByTestId('node-interval-sec'));
    await user.type(within(dialog).getByTestId('node-interval-sec'), '15');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(screen.queryByTestId('node-dialog-interval')).not.toBeInTheDocument());
    expect(await screen.findByText('Intervalo 15 seg.')).toBeInTheDocument();

    fireEvent.click(await addButton('message'));
    dialog = await screen.findByTestId('node-dialog-message');
    await user.type(within(dialog).getByTestId('node-message-text'), '   ');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Campos de mensagem vazio!')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('node-dialog-cancel'));

    fireEvent.click(await addButton('ticket'));
    dialog = await screen.findByTestId('node-dialog-ticket');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Adicione uma fila')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('node-ticket-queue'));
    await user.click(await screen.findByTestId('node-ticket-queue-option-4'));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(screen.queryByTestId('node-dialog-ticket')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('flow-editor-save'));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1));
    const nodes = (api.find('POST', '/flowbuilder/flow')[0].body as { nodes: { id: string; type: string; data: unknown }[] }).nodes;
    const interval = nodes.find((n) => n.type === 'interval');
    expect(interval?.data).toEqual({ sec: 15, label: 'Intervalo 15 seg.' });
    expect(interval?.id).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(nodes.filter((n) => n.type === 'message')).toHaveLength(0);
    expect(nodes.filter((n) => n.type === 'ticket').map((n) => n.data)).toContainEqual({ queue: { id: 4, name: 'Vendas' } });
  });

  it('highlights a clicked node and removes it with its connections on Backspace, or through its delete action', async () => {
    const api = server({ 'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }) });
    const menu = await openEditor();
    const user = userEvent.setup();
    // A click without the mouse-down: d3-drag's drag start needs a real window as the event's view.
    fireEvent.click(menu);
    await waitFor(() => expect(screen.getByTestId('flow-node-menu1')).toHaveAttribute('data-selected', 'true'));
    expect(screen.getByTestId('flow-node-ticket1')).toHaveAttribute('data-selected', 'false');
    fireEvent.keyDown(document.body, { key: 'Backspace' });
    await waitFor(() => expect(screen.queryByTestId('flow-node-menu1')).not.toBeInTheDocument());
    fireEvent.click(screen.getByTestId('flow-node-delete-rand1'));
    await waitFor(() => expect(screen.queryByTestId('flow-node-rand1')).not.toBeInTheDocument());
    fireEvent.click(screen.getByTestId('flow-node-duplicate-ticket1'));
    await user.click(screen.getByTestId('flow-editor-save'));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1));
    const body = api.find('POST', '/flowbuilder/flow')[0].body as { nodes: { id: string; type: string; position: { x: number } }[]; connections: unknown[] };
    expect(body.connections).toEqual([]);
    expect(body.nodes.filter((n) => n.type === 'ticket').map((n) => n.position.x)).toEqual([400, 400 + NEW_NODE_SIZE.width + NODE_GAP]);
  });

  it('edits a node on double-click', async () => {
    server();
    const menu = await openEditor();
    fireEvent.doubleClick(menu);
    const dialog = await screen.findByTestId('node-dialog-menu');
    expect(within(dialog).getByTestId('node-menu-message')).toHaveValue('Escolha');
    const user = userEvent.setup();
    await user.click(within(dialog).getByTestId('node-menu-add-option'));
    await user.type(within(dialog).getByTestId('node-menu-option-3'), 'Financeiro');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(screen.getByTestId('flow-node-menu1')).findByTestId('flow-handle-a3')).toHaveTextContent('[3] Financeiro');
  });

  it('shows the issues returned by save on their nodes, translated by code', async () => {
    server({
      'POST /flowbuilder/flow': () => ({
        flow: { id: 5, name: 'Atendimento', active: true },
        issues: [
          { nodeId: 'ticket1', code: 'ticket_queue_missing', message: 'Adicione uma fila' },
          { nodeId: null, code: 'missing_start', message: 'Adicione um nó de início ao fluxo' },
        ],
      }),
    });
    await openEditor();
    await setLanguage('en');
    const user = userEvent.setup();
    await user.click(screen.getByTestId('flow-editor-save'));
    const ticket = screen.getByTestId('flow-node-ticket1');
    await waitFor(() => expect(ticket).toHaveAttribute('data-has-issues', 'true'));
    expect(screen.getByTestId('flow-node-menu1')).toHaveAttribute('data-has-issues', 'false');
    expect(screen.getByTestId('flow-editor-issues')).toHaveTextContent('Add a start node to the flow');
    await user.hover(ticket);
    expect(await screen.findByTestId('flow-node-issues-ticket1')).toHaveTextContent('Add a queue');
  });

  it('shows drop-off per node once a version is published', async () => {
    server({
      'GET /flowbuilder/flow/:id': () => ({ flow: { id: 5, name: 'Atendimento', active: true, flow: GRAPH, version: 2, draft: false } }),
      'GET /flowbuilder/:id/stats': () => ({ version: 2, nodes: { menu1: { entered: 10, stopped: 3 } } }),
    });
    await openEditor();
    expect(await screen.findByTestId('flow-node-stats-menu1')).toHaveTextContent('10 / 3');
    expect(screen.queryByTestId('flow-node-stats-ticket1')).not.toBeInTheDocument();
  });

  it('removing a menu option renumbers the rest and moves their connections', async () => {
    const api = server({ 'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }) });
    fireEvent.doubleClick(await openEditor());
    const dialog = await screen.findByTestId('node-dialog-menu');
    const user = userEvent.setup();
    await user.click(within(dialog).getByTestId('node-menu-remove-1'));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(screen.queryByTestId('node-dialog-menu')).not.toBeInTheDocument());
    expect(within(screen.getByTestId('flow-node-menu1')).getByTestId('flow-handle-a1')).toHaveTextContent('[1] Suporte');
    await user.click(screen.getByTestId('flow-editor-save'));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1));
    const body = api.find('POST', '/flowbuilder/flow')[0].body as { connections: unknown[] };
    expect(body.connections).toEqual([
      { id: 'e1', source: 'oldstart', target: 'menu1' },
      { id: 'e2', source: 'menu1', target: 'ticket1', sourceHandle: 'a1' },
    ]);
  });

  it('publishes after saving, shows the core issues of a refused publish, and restores a version', async () => {
    let refuse = true;
    const api = server({
      'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }),
      'POST /flowbuilder/:id/publish': () =>
        refuse
          ? reply(422, { error: 'ERR_FLOW_INVALID', message: 'invalid', issues: [{ nodeId: 'rand1', code: 'randomizer_percent_invalid', message: 'x' }] })
          : { version: 3, publishedAt: '2026-11-23T10:00:00Z' },
      'GET /flowbuilder/:id/versions': () => [
        { version: 3, publishedAt: '2026-11-23T10:00:00Z', publishedBy: { id: 1, name: 'Admin' } },
        { version: 2, publishedAt: '2026-11-20T10:00:00Z', publishedBy: null },
      ],
      'GET /flowbuilder/:id/stats': () => ({ version: 3, nodes: {} }),
      'POST /flowbuilder/:id/versions/:version/restore': () => ({
        flow: { id: 5, name: 'Atendimento', active: true, flow: { nodes: [GRAPH.nodes[0]], connections: [] }, version: 3, draft: true },
      }),
    });
    await openEditor();
    const user = userEvent.setup();
    await user.click(screen.getByTestId('flow-editor-publish'));
    expect(await screen.findByText('O fluxo tem problemas; corrija-os antes de publicar')).toBeInTheDocument();
    expect(screen.getByTestId('flow-node-rand1')).toHaveAttribute('data-has-issues', 'true');
    expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1);

    refuse = false;
    await user.click(screen.getByTestId('flow-editor-publish'));
    expect(await screen.findByText('Versão 3 publicada')).toBeInTheDocument();
    expect(screen.getByTestId('flow-editor-version')).toHaveTextContent('Publicado: versão 3');
    expect(screen.getByTestId('flow-node-rand1')).toHaveAttribute('data-has-issues', 'false');
    expect(api.find('POST', '/flowbuilder/5/publish')).toHaveLength(2);

    await user.click(screen.getByTestId('flow-editor-versions'));
    await user.click(await screen.findByTestId('flow-editor-restore-2'));
    expect(await screen.findByText('Versão 2 restaurada como rascunho')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('flow-node-menu1')).not.toBeInTheDocument());
    expect(screen.getByTestId('flow-node-oldstart')).toBeInTheDocument();
    expect(api.find('POST', '/flowbuilder/5/versions/2/restore')).toHaveLength(1);
  });

  it('uploads an image node through /flowbuilder/img and refuses files over 2 MB with the spec text', async () => {
    const urls = stubObjectUrls();
    const api = server({
      'POST /flowbuilder/img': () => ({ names: ['stored-abc.png'] }),
      'GET /flowbuilder/media/:name': () => imageResponse(),
      'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }),
    });
    await openEditor();
    const user = userEvent.setup();
    fireEvent.click(await addButton('img'));
    const dialog = await screen.findByTestId('node-dialog-img');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Delete os cards vazios(Imagem, Audio e Video)')).toBeInTheDocument();
    const big = new File([new Uint8Array(2 * 1024 * 1024 + 1)], 'foto.png', { type: 'image/png' });
    await user.upload(within(dialog).getByTestId('node-media-file'), big);
    expect(await within(dialog).findByText('Arquivo é muito grande! 2MB máximo')).toBeInTheDocument();
    expect(api.find('POST', '/flowbuilder/img')).toHaveLength(0);
    await user.upload(within(dialog).getByTestId('node-media-file'), new File(['png'], 'foto.png', { type: 'image/png' }));
    expect(await within(dialog).findByText('stored-abc.png')).toBeInTheDocument();
    expect(await within(dialog).findByTestId('node-media-preview')).toHaveAttribute('src', urls.created[0]);
    expect(api.find('GET', '/flowbuilder/media/stored-abc.png')).toHaveLength(1);
    const sent = api.find('POST', '/flowbuilder/img')[0].body as FormData;
    expect((sent.get('medias') as File).name).toBe('foto.png');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await user.click(screen.getByTestId('flow-editor-save'));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1));
    const nodes = (api.find('POST', '/flowbuilder/flow')[0].body as { nodes: { type: string; data: unknown }[] }).nodes;
    expect(nodes.find((n) => n.type === 'img')?.data).toEqual({ url: 'stored-abc.png', record: false });
    urls.restore();
  });

  it('question dialog: its titles, required fields, and the stored answer keys', async () => {
    server();
    await openEditor();
    const user = userEvent.setup();
    fireEvent.click(await addButton('question'));
    const dialog = await screen.findByTestId('node-dialog-question');
    expect(within(dialog).getByText('Adicionar Perguta ao fluxo')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(within(dialog).getAllByText('Obrigatório')).toHaveLength(2));
    await user.type(within(dialog).getByTestId('node-question-message'), 'Qual seu nome?');
    await user.type(within(dialog).getByTestId('node-question-key'), 'nome');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(screen.queryByTestId('node-dialog-question')).not.toBeInTheDocument());
    expect(JSON.parse(localStorage.getItem('variables') ?? '[]')).toEqual(['nome']);
    const node = await screen.findByText('Qual seu nome?');
    fireEvent.doubleClick(node);
    const edit = await screen.findByTestId('node-dialog-question');
    expect(within(edit).getByText('Editar Perguta')).toBeInTheDocument();
    await user.clear(within(edit).getByTestId('node-question-key'));
    await user.type(within(edit).getByTestId('node-question-key'), 'cliente');
    await user.click(within(edit).getByTestId('node-dialog-save'));
    await waitFor(() => expect(JSON.parse(localStorage.getItem('variables') ?? '[]')).toEqual(['cliente']));
  });

  it('content dialog: checks its elements and uploads media through /flowbuilder/content', async () => {
    const api = server({ 'POST /flowbuilder/content': () => ({ names: ['voz-1.ogg'] }), 'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }) });
    await openEditor();
    const user = userEvent.setup();
    fireEvent.click(await addButton('content'));
    const dialog = await screen.findByTestId('node-dialog-content');
    await user.click(within(dialog).getByTestId('node-content-add-message'));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Campos de mensagem vazio!')).toBeInTheDocument();
    await user.type(within(dialog).getByTestId('node-content-value-0'), 'Olá!');
    await user.click(within(dialog).getByTestId('node-content-add-interval'));
    await user.type(within(dialog).getByTestId('node-content-value-1'), '130');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Intervalo não pode ser 0 ou maior que 120!')).toBeInTheDocument();
    await user.clear(within(dialog).getByTestId('node-content-value-1'));
    await user.type(within(dialog).getByTestId('node-content-value-1'), '5');
    await user.click(within(dialog).getByTestId('node-content-add-audio'));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    expect(await within(dialog).findByText('Delete os cards vazios(Imagem, Audio e Video)')).toBeInTheDocument();
    await user.upload(within(dialog).getByTestId('node-content-file-2'), new File(['ogg'], 'voz.opus', { type: 'audio/ogg' }));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/content')).toHaveLength(1));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(screen.queryByTestId('node-dialog-content')).not.toBeInTheDocument());
    await user.click(screen.getByTestId('flow-editor-save'));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1));
    const nodes = (api.find('POST', '/flowbuilder/flow')[0].body as { nodes: { type: string; data: unknown }[] }).nodes;
    expect(nodes.find((n) => n.type === 'content')?.data).toEqual({
      seq: ['message0', 'interval0', 'audio0'],
      elements: [
        { type: 'message', value: 'Olá!', original: '', number: 'message0', record: false },
        { type: 'interval', value: '5', original: '', number: 'interval0', record: false },
        { type: 'audio', value: 'voz-1.ogg', original: 'voz.opus', number: 'audio0', record: false },
      ],
    });
  });
});

describe('/flowbuilder/:id — a new flow and unsaved edits (issue 15)', () => {
  const NEW_FLOW = { 'GET /flowbuilder/flow/:id': () => ({ flow: { id: 5, name: 'Novo', active: true, flow: null, version: null, draft: false } }) };
  const LIST = { 'GET /flowbuilder': () => ({ flows: [], hasMore: false, count: 0 }) };

  it('opens a flow never saved with its start node "1", which the first save stores', async () => {
    const api = server({ ...NEW_FLOW, 'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }) });
    renderApp('/flowbuilder/5');
    const start = await screen.findByTestId('flow-node-1', {}, { timeout: 5000 });
    expect(start).toHaveAttribute('data-node-type', 'start');
    expect(start).toHaveTextContent('Inicio do fluxo');
    // Opening it is no edit: nothing to warn about yet.
    expect(screen.getByTestId('flow-editor-save')).toHaveAttribute('data-dirty', 'false');
    await userEvent.setup().click(screen.getByTestId('flow-editor-save'));
    await waitFor(() => expect(api.find('POST', '/flowbuilder/flow')).toHaveLength(1));
    expect(api.find('POST', '/flowbuilder/flow')[0].body).toMatchObject({
      idFlow: 5,
      nodes: [{ id: '1', type: 'start', data: { label: 'Inicio do fluxo' } }],
      connections: [],
    });
  });

  it('leaves at once without edits; with edits asks first: staying keeps them, leaving drops them', async () => {
    server({ ...LIST });
    await openEditor();
    const user = userEvent.setup();
    // Unchanged: the back button leaves, and the tab may close without a question.
    expect(window.dispatchEvent(new Event('beforeunload', { cancelable: true }))).toBe(true);
    await user.click(screen.getByTestId('flow-editor-back'));
    await waitFor(() => expect(window.location.pathname).toBe('/flowbuilders'));

    await openEditor();
    fireEvent.click(screen.getByTestId('flow-node-delete-rand1'));
    await waitFor(() => expect(screen.queryByTestId('flow-node-rand1')).not.toBeInTheDocument());
    expect(window.dispatchEvent(new Event('beforeunload', { cancelable: true }))).toBe(false);
    await user.click(screen.getByTestId('flow-editor-back'));
    const dialog = await screen.findByTestId('flow-editor-leave-dialog');
    expect(dialog).toHaveTextContent('Sair sem salvar?');
    await user.click(within(dialog).getByTestId('flow-editor-leave-stay'));
    await waitFor(() => expect(screen.queryByTestId('flow-editor-leave-dialog')).not.toBeInTheDocument());
    expect(window.location.pathname).toBe('/flowbuilder/5');
    expect(screen.getByTestId('flow-node-menu1')).toBeInTheDocument();
    expect(screen.queryByTestId('flow-node-rand1')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('flow-editor-back'));
    await user.click(within(await screen.findByTestId('flow-editor-leave-dialog')).getByTestId('flow-editor-leave-discard'));
    await waitFor(() => expect(window.location.pathname).toBe('/flowbuilders'));
  });

  it('saves and leaves from the question, in the chosen language', async () => {
    await setLanguage('es');
    const api = server({ ...LIST, 'POST /flowbuilder/flow': () => ({ flow: null, issues: [] }) });
    await openEditor();
    const user = userEvent.setup();
    fireEvent.click(screen.getByTestId('flow-node-delete-rand1'));
    await waitFor(() => expect(screen.queryByTestId('flow-node-rand1')).not.toBeInTheDocument());
    await user.click(screen.getByTestId('flow-editor-back'));
    const dialog = await screen.findByTestId('flow-editor-leave-dialog');
    expect(dialog).toHaveTextContent('¿Salir sin guardar?');
    await user.click(within(dialog).getByTestId('flow-editor-leave-save'));
    await waitFor(() => expect(window.location.pathname).toBe('/flowbuilders'));
    const body = api.find('POST', '/flowbuilder/flow')[0].body as { nodes: { id: string }[] };
    expect(body.nodes.map((n) => n.id)).toEqual(['oldstart', 'menu1', 'ticket1']);
  });

  it('lists every node type in the add-node menu, with its name', async () => {
    server();
    await openEditor();
    fireEvent.click(screen.getByTestId('flow-editor-add'));
    const menu = await screen.findByRole('menu');
    expect(within(menu).getAllByRole('menuitem')).toHaveLength(14);
    expect(within(menu).getByTestId('flow-editor-add-condition')).toHaveTextContent('Condição');
  });
});
