import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../../lib/i18n';
import { renderApp } from '../../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../../test/server';
import { lastSocket } from '../../../../test/socket';
import { adminAuth } from '../../../../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../../test/socket')).ioMock }));

const tag = (id: number, overrides: Record<string, unknown> = {}) => ({ id, name: `Tag ${id}`, color: '#112233', kanban: 0, ...overrides });

function server(routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => adminAuth(),
    'GET /whatsapp': () => [],
    ...routes,
  });
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/tags', () => {
  it('lists tags, searches after 500 ms and loads the next page near the bottom', async () => {
    const api = server({
      'GET /tags': ({ query }) => {
        if (query.get('searchParam')) return { tags: [tag(99, { name: 'Urgente' })], hasMore: false, count: 1 };
        const page = Number(query.get('pageNumber'));
        return { tags: Array.from({ length: 20 }, (_, i) => tag((page - 1) * 20 + i + 1, i === 0 ? { kanban: 1 } : {})), hasMore: page < 2, count: 40 };
      },
    });
    renderApp('/tags');
    const first = await screen.findByTestId('tags-row-1');
    expect(first).toHaveTextContent('Tag 1');
    expect(first).toHaveTextContent('Sim');
    const container = screen.getByTestId('tags-table-container');
    Object.defineProperty(container, 'scrollHeight', { configurable: true, value: 1000 });
    Object.defineProperty(container, 'clientHeight', { configurable: true, value: 400 });
    container.scrollTop = 550;
    fireEvent.scroll(container);
    expect(await screen.findByTestId('tags-row-21')).toBeInTheDocument();
    expect(api.find('GET', '/tags').map((r) => r.query.get('pageNumber'))).toEqual(['1', '2']);

    const user = userEvent.setup();
    await user.type(screen.getByTestId('tags-search'), 'urg');
    expect(await screen.findByTestId('tags-row-99', {}, { timeout: 2000 })).toBeInTheDocument();
    expect(api.find('GET', '/tags').filter((r) => r.query.get('searchParam')).map((r) => r.query.get('searchParam'))).toEqual(['urg']);
  });

  it('creates a tag: "Tag muito curta!" under 3 characters, then posts name, colour and kanban', async () => {
    const api = server({
      'GET /tags': () => ({ tags: [], hasMore: false, count: 0 }),
      'POST /tags': ({ body }) => ({ id: 5, ...(body as object) }),
    });
    renderApp('/tags');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tags-add'));
    const modal = await screen.findByTestId('tag-modal');
    await user.type(within(modal).getByTestId('tag-modal-name'), 'ab');
    await user.click(within(modal).getByTestId('tag-modal-save'));
    expect(await within(modal).findByText('Tag muito curta!')).toBeInTheDocument();
    await user.type(within(modal).getByTestId('tag-modal-name'), 'c');
    fireEvent.input(within(modal).getByTestId('tag-modal-color'), { target: { value: '#00aa11' } });
    await user.click(within(modal).getByTestId('tag-modal-kanban'));
    await user.click(within(modal).getByTestId('tag-modal-save'));
    await waitFor(() => expect(screen.queryByTestId('tag-modal')).not.toBeInTheDocument());
    expect(api.find('POST', '/tags')[0].body).toEqual({ name: 'abc', color: '#00aa11', kanban: 1 });
    expect(await screen.findByText('Tag salva com sucesso!')).toBeInTheDocument();
  });

  it('edits and deletes a tag after confirmation', async () => {
    let tags = [tag(1), tag(2)];
    const api = server({
      'GET /tags': () => ({ tags, hasMore: false, count: tags.length }),
      'PUT /tags/:id': ({ body }) => ({ id: 1, ...(body as object) }),
      'DELETE /tags/:id': () => {
        tags = tags.filter((t) => t.id !== 2);
        return undefined;
      },
    });
    renderApp('/tags');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('tags-edit-1'));
    const modal = await screen.findByTestId('tag-modal');
    expect(within(modal).getByTestId('tag-modal-name')).toHaveValue('Tag 1');
    await user.clear(within(modal).getByTestId('tag-modal-name'));
    await user.type(within(modal).getByTestId('tag-modal-name'), 'Prioridade');
    await user.click(within(modal).getByTestId('tag-modal-save'));
    await waitFor(() => expect(api.find('PUT', '/tags/1')).toHaveLength(1));
    expect(api.find('PUT', '/tags/1')[0].body).toEqual({ name: 'Prioridade', color: '#112233', kanban: 0 });

    await user.click(screen.getByTestId('tags-delete-2'));
    expect(await screen.findByText('Excluir a tag Tag 2?')).toBeInTheDocument();
    await user.click(screen.getByTestId('tags-delete-dialog-confirm'));
    await waitFor(() => expect(screen.queryByTestId('tags-row-2')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/tags/2')).toHaveLength(1);
  });

  it('refreshes on company{id}-tag', async () => {
    let tags = [tag(1)];
    server({ 'GET /tags': () => ({ tags, hasMore: false, count: tags.length }) });
    renderApp('/tags');
    await screen.findByTestId('tags-row-1');
    tags = [tag(1), tag(3, { name: 'Nova' })];
    act(() => lastSocket().serverEmit('company1-tag', { action: 'create', seq: 4, tag: tag(3, { name: 'Nova' }) }));
    expect(await screen.findByTestId('tags-row-3')).toHaveTextContent('Nova');
  });
});
