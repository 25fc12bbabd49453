import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { ADMIN_INBOX_PERMISSIONS, adminAuth, authFixture } from '../../../test/fixtures';
import { stubObjectUrls } from '../../../test/object-urls';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const VIP = { id: 7, name: 'VIP', color: '#ff0000', kanban: 0 };
const LEAD = { id: 8, name: 'Lead', color: '#00ff00', kanban: 1 };

function contactFixture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    companyId: 1,
    name: `Contato ${id}`,
    number: `5511988880${String(id).padStart(3, '0')}`,
    email: `c${id}@mail.test`,
    active: true,
    disableBot: false,
    acceptAudioMessage: true,
    urlPicture: null,
    channel: 'whatsapp',
    isGroup: false,
    lgpdAcceptedAt: null,
    whatsappId: 3,
    whatsappName: 'Comercial',
    extraInfo: [],
    tags: [],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

function server(routes: Record<string, MockHandler> = {}, auth: unknown = adminAuth()) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => auth,
    'GET /whatsapp': () => [],
    'GET /tags/list': () => [VIP, LEAD],
    ...routes,
  });
}

let urls: ReturnType<typeof stubObjectUrls>;
beforeEach(async () => {
  urls = stubObjectUrls();
  await setLanguage('pt');
});
afterEach(() => urls.restore());

describe('/contacts', () => {
  it('lists contacts with number, e-mail, connection and status; searches after 500 ms; pages by cursor', async () => {
    const api = server({
      'GET /contacts': ({ query }) => {
        if (query.get('searchParam')) return { contacts: [contactFixture(99, { name: 'Maria' })], hasMore: false, count: 1, nextCursor: null };
        if (query.get('cursor') === 'c2') return { contacts: Array.from({ length: 5 }, (_, i) => contactFixture(30 + i)), hasMore: false, count: null, nextCursor: null };
        return {
          contacts: [contactFixture(1, { active: false, tags: [VIP] }), ...Array.from({ length: 19 }, (_, i) => contactFixture(10 + i))],
          hasMore: true,
          count: 25,
          nextCursor: 'c2',
        };
      },
    });
    renderApp('/contacts');
    const row = await screen.findByTestId('contacts-row-1');
    expect(row).toHaveTextContent('Contato 1');
    expect(row).toHaveTextContent('5511988880001');
    expect(row).toHaveTextContent('c1@mail.test');
    expect(row).toHaveTextContent('Comercial');
    expect(row).toHaveTextContent('VIP');
    expect(row).toHaveAttribute('data-active', 'false');
    expect(within(row).getByLabelText('Bloqueado')).toBeInTheDocument();

    const container = screen.getByTestId('contacts-table-container');
    Object.defineProperty(container, 'scrollHeight', { configurable: true, value: 1000 });
    Object.defineProperty(container, 'clientHeight', { configurable: true, value: 400 });
    container.scrollTop = 550;
    fireEvent.scroll(container);
    expect(await screen.findByTestId('contacts-row-30')).toBeInTheDocument();
    expect(api.find('GET', '/contacts')[1].query.get('cursor')).toBe('c2');

    const user = userEvent.setup();
    await user.type(screen.getByTestId('contacts-search'), 'Mar');
    expect(await screen.findByTestId('contacts-row-99', {}, { timeout: 2000 })).toBeInTheDocument();
    const searched = api.find('GET', '/contacts').filter((r) => r.query.get('searchParam'));
    expect(searched.map((r) => r.query.get('searchParam'))).toEqual(['Mar']);
  });

  it('filters by tag with contactTag as JSON ids', async () => {
    const api = server({ 'GET /contacts': () => ({ contacts: [contactFixture(1)], hasMore: false, count: 1, nextCursor: null }) });
    renderApp('/contacts');
    await screen.findByTestId('contacts-row-1');
    const user = userEvent.setup();
    await user.click(screen.getByTestId('contacts-tag-filter'));
    await user.click(await screen.findByRole('option', { name: 'Lead' }));
    await waitFor(() => expect(api.find('GET', '/contacts').some((r) => r.query.get('contactTag') === '[8]')).toBe(true));
  });

  it('creates a contact: validation messages, extra info, a new tag and the tag sync', async () => {
    const api = server({
      'GET /contacts': () => ({ contacts: [], hasMore: false, count: 0, nextCursor: null }),
      'POST /contacts': ({ body }) => contactFixture(50, body as Record<string, unknown>),
      'POST /tags': ({ body }) => ({ id: 12, ...(body as object) }),
      'POST /tags/sync': () => ({}),
    });
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-add'));
    const modal = await screen.findByTestId('contact-modal');
    await user.type(within(modal).getByTestId('contact-modal-name'), 'J');
    await user.type(within(modal).getByTestId('contact-modal-number'), '1234');
    await user.type(within(modal).getByTestId('contact-modal-email'), 'nope');
    await user.click(within(modal).getByTestId('contact-modal-save'));
    expect(await within(modal).findAllByText('Muito curto!')).toHaveLength(2);
    expect(within(modal).getByText('Email inválido')).toBeInTheDocument();
    expect(api.find('POST', '/contacts')).toHaveLength(0);

    await user.type(within(modal).getByTestId('contact-modal-name'), 'oão');
    await user.type(within(modal).getByTestId('contact-modal-number'), '56789');
    await user.clear(within(modal).getByTestId('contact-modal-email'));
    await user.type(within(modal).getByTestId('contact-modal-email'), 'joao@mail.test');
    await user.click(within(modal).getByTestId('contact-modal-extra-add'));
    await user.type(within(modal).getByTestId('contact-modal-extra-0-name'), 'CPF');
    await user.type(within(modal).getByTestId('contact-modal-extra-0-value'), '123');
    // a typed tag shorter than 3 characters is refused
    await user.type(within(modal).getByTestId('contact-modal-tags'), 'ab{Enter}');
    expect(await screen.findByText('Tag muito curta!')).toBeInTheDocument();
    expect(api.find('POST', '/tags')).toHaveLength(0);
    await user.type(within(modal).getByTestId('contact-modal-tags'), 'Cliente{Enter}');
    await waitFor(() => expect(api.find('POST', '/tags')).toHaveLength(1));
    await user.click(within(modal).getByTestId('contact-modal-tags'));
    await user.click(await screen.findByRole('option', { name: 'VIP' }));

    await user.click(within(modal).getByTestId('contact-modal-save'));
    await waitFor(() => expect(screen.queryByTestId('contact-modal')).not.toBeInTheDocument());
    expect(api.find('POST', '/contacts')[0].body).toEqual({
      name: 'João',
      number: '123456789',
      email: 'joao@mail.test',
      extraInfo: [{ name: 'CPF', value: '123' }],
    });
    expect(api.find('POST', '/tags/sync')[0].body).toEqual({ contactId: 50, tags: [{ id: 12 }, { id: 7 }] });
    expect(await screen.findByText('Contato salvo com sucesso!')).toBeInTheDocument();
  });

  it('edits a contact: loads its extra info and tags, keeps channel and connection, syncs changed tags', async () => {
    const maria = contactFixture(4, { name: 'Maria', extraInfo: [{ id: 1, name: 'CPF', value: '111' }], tags: [VIP] });
    const api = server({
      'GET /contacts': () => ({ contacts: [maria], hasMore: false, count: 1, nextCursor: null }),
      'GET /contacts/:id': () => maria,
      'PUT /contacts/:id': ({ body }) => ({ ...maria, ...(body as object) }),
      'POST /tags/sync': () => ({}),
    });
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-edit-4'));
    const modal = await screen.findByTestId('contact-modal');
    await waitFor(() => expect(within(modal).getByTestId('contact-modal-extra-0-value')).toHaveValue('111'));
    expect(within(modal).getByText('VIP')).toBeInTheDocument();
    await user.click(within(modal).getByTestId('contact-modal-extra-0-remove'));
    await user.click(within(modal).getByTestId('contact-modal-tags'));
    await user.click(await screen.findByRole('option', { name: 'Lead' }));
    await user.click(within(modal).getByTestId('contact-modal-save'));
    await waitFor(() => expect(screen.queryByTestId('contact-modal')).not.toBeInTheDocument());
    expect(api.find('PUT', '/contacts/4')[0].body).toEqual({
      name: 'Maria',
      number: '5511988880004',
      email: 'c4@mail.test',
      extraInfo: [],
      channel: 'whatsapp',
      isGroup: false,
      whatsappId: 3,
    });
    expect(api.find('POST', '/tags/sync')[0].body).toEqual({ contactId: 4, tags: [{ id: 7 }, { id: 8 }] });
  });

  it('shows the other identities WhatsApp knows the contact by, read-only, and sends none back', async () => {
    const ana = contactFixture(5, { name: 'Ana', number: '5511977776666' });
    const api = server({
      'GET /contacts': () => ({ contacts: [ana], hasMore: false, count: 1, nextCursor: null }),
      'GET /contacts/:id': () => ({ ...ana, aliases: ['201234567890123@lid'] }),
      'PUT /contacts/:id': ({ body }) => ({ ...ana, ...(body as object) }),
    });
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-edit-5'));
    const modal = await screen.findByTestId('contact-modal');
    const aliases = await within(modal).findByTestId('contact-aliases');
    expect(aliases).toHaveTextContent('Também conhecido como');
    expect(within(aliases).getByTestId('contact-alias-0')).toHaveTextContent('ID do WhatsApp 201234567890123');
    await user.click(within(modal).getByTestId('contact-modal-save'));
    await waitFor(() => expect(screen.queryByTestId('contact-modal')).not.toBeInTheDocument());
    expect(api.find('PUT', '/contacts/5')[0].body).not.toHaveProperty('aliases');
  });

  it('blocks and unblocks with their toasts', async () => {
    let active = true;
    const api = server({
      'GET /contacts': () => ({ contacts: [contactFixture(1, { active })], hasMore: false, count: 1, nextCursor: null }),
      'PUT /contacts/block/:id': ({ body }) => {
        active = (body as { active: boolean }).active;
        return contactFixture(1, { active });
      },
    });
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-block-1'));
    await user.click(await screen.findByTestId('contacts-block-dialog-confirm'));
    expect(await screen.findByText('Contato bloqueado')).toBeInTheDocument();
    expect(api.find('PUT', '/contacts/block/1')[0].body).toEqual({ active: false });
    await waitFor(() => expect(screen.getByTestId('contacts-row-1')).toHaveAttribute('data-active', 'false'));
    await user.click(screen.getByTestId('contacts-block-1'));
    await user.click(await screen.findByTestId('contacts-block-dialog-confirm'));
    expect(await screen.findByText('Contato desbloqueado')).toBeInTheDocument();
    expect(api.find('PUT', '/contacts/block/1')[1].body).toEqual({ active: true });
  });

  it('deletes only with contacts-page:deleteContact, after confirmation', async () => {
    let list = [contactFixture(1), contactFixture(2)];
    const api = server({
      'GET /contacts': () => ({ contacts: list, hasMore: false, count: list.length, nextCursor: null }),
      'DELETE /contacts/:id': () => {
        list = list.filter((c) => c.id !== 2);
        return undefined;
      },
    });
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-delete-2'));
    await user.click(await screen.findByTestId('contacts-delete-dialog-confirm'));
    await waitFor(() => expect(screen.queryByTestId('contacts-row-2')).not.toBeInTheDocument());
    expect(api.find('DELETE', '/contacts/2')).toHaveLength(1);
  });

  it('has no delete action without the capability', async () => {
    const permissions = ADMIN_INBOX_PERMISSIONS.filter((p) => p !== 'contacts-page:deleteContact');
    server({ 'GET /contacts': () => ({ contacts: [contactFixture(1)], hasMore: false, count: 1, nextCursor: null }) }, authFixture({ permissions }));
    renderApp('/contacts');
    expect(await screen.findByTestId('contacts-edit-1')).toBeInTheDocument();
    expect(screen.queryByTestId('contacts-delete-1')).not.toBeInTheDocument();
  });

  it('opens a ticket and goes to it; a 409 of mine opens the existing one; of another user shows who has it', async () => {
    let attempt = 0;
    const api = server({
      'GET /contacts': () => ({ contacts: [contactFixture(1)], hasMore: false, count: 1, nextCursor: null }),
      'POST /tickets': () => {
        attempt += 1;
        if (attempt === 1) return { id: 5, uuid: 'new-uuid', status: 'open' };
        if (attempt === 2) return reply(409, { error: 'ERR_OTHER_OPEN_TICKET', message: 'open', ticket: { id: 6, uuid: 'mine-uuid', userId: 1, user: { id: 1, name: 'Admin' }, queue: null } });
        return reply(409, { error: 'ERR_OTHER_OPEN_TICKET', message: 'open', ticket: { id: 7, uuid: 'other-uuid', userId: 2, user: { id: 2, name: 'Bia' }, queue: { id: 4, name: 'Suporte' } } });
      },
      'GET /tickets': () => ({ tickets: [], hasMore: false, count: 0, nextCursor: null }),
      'GET /tickets/u/:uuid': () => reply(404, { error: 'ERR_NO_TICKET_FOUND', message: 'no' }),
    });
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-open-ticket-1'));
    await waitFor(() => expect(window.location.pathname).toBe('/tickets/new-uuid'));
    expect(api.find('POST', '/tickets')[0].body).toEqual({ contactId: 1, queueId: null, whatsappId: 3, userId: 1, status: 'open' });

    cleanup();
    renderApp('/contacts');
    await user.click(await screen.findByTestId('contacts-open-ticket-1'));
    await waitFor(() => expect(window.location.pathname).toBe('/tickets/mine-uuid'));

    cleanup();
    renderApp('/contacts');
    await user.click(await screen.findByTestId('contacts-open-ticket-1'));
    const dialog = await screen.findByTestId('contacts-other-ticket');
    expect(dialog).toHaveTextContent('Bia');
    expect(dialog).toHaveTextContent('Suporte');
    expect(window.location.pathname).toBe('/contacts');
  });

  it('exports the contacts as a downloaded file and goes to the import page', async () => {
    const api = server({
      'GET /contacts': () => ({ contacts: [], hasMore: false, count: 0, nextCursor: null }),
      'GET /contacts/export': () => new Response(new Uint8Array([1, 2, 3]), { status: 200 }),
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    renderApp('/contacts');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('contacts-import-export'));
    await user.click(await screen.findByTestId('contacts-export'));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(api.find('GET', '/contacts/export')).toHaveLength(1);
    expect(urls.createObjectURL).toHaveBeenCalled();
    click.mockRestore();

    await user.click(screen.getByTestId('contacts-import-export'));
    await user.click(await screen.findByTestId('contacts-import'));
    expect(await screen.findByTestId('contacts-import-page')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/contacts/import');
  });

  describe('import from phone', () => {
    const COMERCIAL = { id: 3, name: 'Comercial', channel: 'whatsapp', status: 'CONNECTED', isDefault: false };
    const SUPORTE = { id: 4, name: 'Suporte', channel: 'whatsapp', status: 'CONNECTED', isDefault: true };
    const VENDAS = { id: 5, name: 'Vendas', channel: 'whatsapp', status: 'DISCONNECTED', isDefault: false };

    async function openDialog() {
      const user = userEvent.setup();
      await user.click(await screen.findByTestId('contacts-import-export'));
      const items = within(await screen.findByRole('menu')).getAllByRole('menuitem');
      expect(items[0]).toHaveAttribute('data-testid', 'contacts-import-phone');
      await user.click(items[0]);
      return { user, dialog: await screen.findByTestId('contacts-phone-import') };
    }

    it('preselects the default connected connection, posts {whatsappId}, shows progress, the report, and reads the list again', async () => {
      let list = [contactFixture(1)];
      const api = server({
        'GET /whatsapp': () => [COMERCIAL, VENDAS, SUPORTE],
        'GET /contacts': () => ({ contacts: list, hasMore: false, count: list.length, nextCursor: null }),
        'POST /contacts/import/chats': () => {
          list = [...list, contactFixture(2, { name: 'Do telefone' })];
          return { whatsappId: 4, chats: 12, imported: 9, existing: 2, ignored: 1 };
        },
      });
      // The import answers only when released, to see the dialog while it runs.
      let release = () => undefined as void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const answer = api.fetch.getMockImplementation();
      if (!answer) throw new Error('no fetch mock');
      api.fetch.mockImplementation(async (input, init) => {
        if (String(input).includes('/contacts/import/chats')) await gate;
        return answer(input, init);
      });
      renderApp('/contacts');
      await screen.findByTestId('contacts-row-1');
      const { user, dialog } = await openDialog();
      expect(dialog).toHaveTextContent('Importar do telefone');
      const select = await within(dialog).findByRole('combobox');
      await waitFor(() => expect(select).toHaveTextContent('Suporte'));
      fireEvent.mouseDown(select);
      expect(await screen.findByRole('option', { name: 'Vendas (desconectada)' })).toHaveAttribute('aria-disabled', 'true');
      expect(screen.getByRole('option', { name: 'Comercial' })).not.toHaveAttribute('aria-disabled');
      await user.keyboard('{Escape}');

      const before = api.find('GET', '/contacts').length;
      await user.click(within(dialog).getByTestId('contacts-phone-import-submit'));
      expect(await within(dialog).findByTestId('contacts-phone-import-progress')).toBeInTheDocument();
      expect(within(dialog).getByTestId('contacts-phone-import-submit')).toBeDisabled();
      release();
      const report = await within(dialog).findByTestId('contacts-phone-import-report');
      expect(report).toHaveTextContent('Conversas encontradas: 12 · importados: 9 · já existentes: 2 · ignorados: 1');
      expect(within(dialog).queryByTestId('contacts-phone-import-progress')).not.toBeInTheDocument();
      expect(api.find('POST', '/contacts/import/chats').map((r) => r.body)).toEqual([{ whatsappId: 4 }]);
      expect(await screen.findByTestId('contacts-row-2')).toHaveTextContent('Do telefone');
      expect(api.find('GET', '/contacts').length).toBeGreaterThan(before);

      await user.click(within(dialog).getByTestId('contacts-phone-import-close'));
      await waitFor(() => expect(screen.queryByTestId('contacts-phone-import')).not.toBeInTheDocument());
    });

    it('preselects the first connected connection without a connected default and posts the one chosen', async () => {
      const api = server({
        'GET /whatsapp': () => [{ ...VENDAS, isDefault: true }, COMERCIAL, { ...SUPORTE, isDefault: false }],
        'GET /contacts': () => ({ contacts: [], hasMore: false, count: 0, nextCursor: null }),
        'POST /contacts/import/chats': () => ({ whatsappId: 4, chats: 0, imported: 0, existing: 0, ignored: 0 }),
      });
      renderApp('/contacts');
      const { user, dialog } = await openDialog();
      const select = await within(dialog).findByRole('combobox');
      await waitFor(() => expect(select).toHaveTextContent('Comercial'));
      fireEvent.mouseDown(select);
      await user.click(await screen.findByRole('option', { name: 'Suporte' }));
      await user.click(within(dialog).getByTestId('contacts-phone-import-submit'));
      await within(dialog).findByTestId('contacts-phone-import-report');
      expect(api.find('POST', '/contacts/import/chats')[0].body).toEqual({ whatsappId: 4 });
    });

    it('shows ERR_WAPP_NOT_INITIALIZED translated in the dialog', async () => {
      server({
        'GET /whatsapp': () => [SUPORTE],
        'GET /contacts': () => ({ contacts: [], hasMore: false, count: 0, nextCursor: null }),
        'POST /contacts/import/chats': () => reply(502, { error: 'ERR_WAPP_NOT_INITIALIZED', message: 'not connected' }),
      });
      renderApp('/contacts');
      const { user, dialog } = await openDialog();
      await waitFor(() => expect(within(dialog).getByRole('combobox')).toHaveTextContent('Suporte'));
      await user.click(within(dialog).getByTestId('contacts-phone-import-submit'));
      expect(await within(dialog).findByTestId('contacts-phone-import-error')).toHaveTextContent(
        'Esta conexão não foi inicializada. Verifique a página de conexões.',
      );
      expect(within(dialog).queryByTestId('contacts-phone-import-report')).not.toBeInTheDocument();
      expect(within(dialog).getByTestId('contacts-phone-import-submit')).toBeEnabled();
    });

    it('says there is no connected connection and disables confirm', async () => {
      const api = server({
        'GET /whatsapp': () => [VENDAS],
        'GET /contacts': () => ({ contacts: [], hasMore: false, count: 0, nextCursor: null }),
      });
      renderApp('/contacts');
      const { dialog } = await openDialog();
      expect(await within(dialog).findByTestId('contacts-phone-import-none')).toHaveTextContent('Nenhuma conexão conectada');
      expect(within(dialog).getByTestId('contacts-phone-import-submit')).toBeDisabled();
      expect(api.find('POST', '/contacts/import/chats')).toHaveLength(0);
    });

    it('speaks English', async () => {
      await setLanguage('en');
      server({
        'GET /whatsapp': () => [SUPORTE],
        'GET /contacts': () => ({ contacts: [], hasMore: false, count: 0, nextCursor: null }),
        'POST /contacts/import/chats': () => ({ whatsappId: 4, chats: 3, imported: 1, existing: 1, ignored: 1 }),
      });
      renderApp('/contacts');
      const user = userEvent.setup();
      await user.click(await screen.findByTestId('contacts-import-export'));
      await user.click(await screen.findByRole('menuitem', { name: 'Import from phone' }));
      const dialog = await screen.findByTestId('contacts-phone-import');
      await waitFor(() => expect(within(dialog).getByRole('combobox')).toHaveTextContent('Suporte'));
      await user.click(within(dialog).getByRole('button', { name: 'Import' }));
      expect(await within(dialog).findByTestId('contacts-phone-import-report')).toHaveTextContent(
        'Chats found: 3 · imported: 1 · already stored: 1 · ignored: 1',
      );
    });
  });

  it('patches a row from company-{id}-contact and removes it on delete', async () => {
    server({ 'GET /contacts': () => ({ contacts: [contactFixture(1), contactFixture(2)], hasMore: false, count: 2, nextCursor: null }) });
    renderApp('/contacts');
    await screen.findByTestId('contacts-row-1');
    const socket = lastSocket();
    act(() => socket.serverEmit('company-1-contact', { action: 'update', seq: 1, contact: contactFixture(1, { name: 'Renomeado' }) }));
    await waitFor(() => expect(screen.getByTestId('contacts-row-1')).toHaveTextContent('Renomeado'));
    act(() => socket.serverEmit('company-1-contact', { action: 'delete', seq: 2, contactId: 2 }));
    await waitFor(() => expect(screen.queryByTestId('contacts-row-2')).not.toBeInTheDocument());
  });
});
