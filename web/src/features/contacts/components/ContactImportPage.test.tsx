import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { adminAuth } from '../../../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

function server(routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => adminAuth(),
    'GET /whatsapp': () => [],
    ...routes,
  });
}

const UPLOAD = {
  columns: ['Cliente', 'Fone', 'Email'],
  rows: [
    ['Ana', '5511999990001', 'ana@mail.test'],
    ['Bruno', '5511999990002', ''],
  ],
  total: 2,
  token: 'imp-1',
};

beforeEach(async () => {
  await setLanguage('pt');
});

describe('/contacts/import', () => {
  it('refuses a file that is not xls, xlsx, csv or txt', async () => {
    const api = server();
    renderApp('/contacts/import');
    const input = await screen.findByTestId('contacts-import-file');
    fireEvent.change(input, { target: { files: [new File(['x'], 'photo.png', { type: 'image/png' })] } });
    expect(await screen.findByText('Arquivo inválido!')).toBeInTheDocument();
    expect(api.find('POST', '/contacts/upload')).toHaveLength(0);
  });

  it('uploads, maps the columns (name and number required, no field twice), previews and imports', async () => {
    const api = server({
      'POST /contacts/upload': () => UPLOAD,
      'POST /contactsImport': () => ({ imported: 1, ignored: 0, failed: 1, errors: [{ row: 3, error: 'ERR_DUPLICATED_CONTACT' }] }),
    });
    renderApp('/contacts/import');
    const user = userEvent.setup();
    await user.upload(await screen.findByTestId('contacts-import-file'), new File(['a;b'], 'lista.csv', { type: 'text/csv' }));
    await waitFor(() => expect(api.find('POST', '/contacts/upload')).toHaveLength(1));
    expect(api.find('POST', '/contacts/upload')[0].body).toBeInstanceOf(FormData);
    const preview = await screen.findByTestId('contacts-import-preview');
    expect(preview).toHaveTextContent('Ana');
    expect(preview).toHaveTextContent('5511999990002');
    // "Email" is guessed; "Cliente" and "Fone" are mapped by hand
    expect(screen.getByTestId('contacts-import-map-2')).toHaveValue('email');
    expect(screen.getByTestId('contacts-import-missing')).toHaveTextContent('Nome, Número');
    expect(screen.getByTestId('contacts-import-submit')).toBeDisabled();

    const select = (index: number) => within(screen.getByTestId('contacts-import-preview')).getAllByRole('combobox')[index];
    await user.click(select(0));
    await user.click(await screen.findByRole('option', { name: 'Nome' }));
    // "Nome" is taken: the second column can't choose it
    await user.click(select(1));
    expect(await screen.findByRole('option', { name: 'Nome' })).toHaveAttribute('aria-disabled', 'true');
    await user.click(screen.getByRole('option', { name: 'Número' }));
    await waitFor(() => expect(screen.queryByTestId('contacts-import-missing')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('contacts-import-submit'));
    await waitFor(() => expect(api.find('POST', '/contactsImport')).toHaveLength(1));
    expect(api.find('POST', '/contactsImport')[0].body).toEqual({ token: 'imp-1', mapping: { name: 'Cliente', number: 'Fone', email: 'Email' } });
    expect(await screen.findByTestId('contacts-import-imported')).toHaveTextContent('Importados: 1');
    expect(screen.getByTestId('contacts-import-ignored')).toHaveTextContent('Ignorados: 0');
    expect(screen.getByTestId('contacts-import-failed')).toHaveTextContent('Com erro: 1');
    expect(screen.getByTestId('contacts-import-result')).toHaveTextContent('Linha 3');
    expect(await screen.findByText('Importação concluída com erros.')).toBeInTheDocument();
  });

  it('shows the done toast when nothing failed', async () => {
    server({
      'POST /contacts/upload': () => ({ ...UPLOAD, columns: ['Nome', 'Número'] }),
      'POST /contactsImport': () => ({ imported: 2, ignored: 0, failed: 0, errors: [] }),
    });
    renderApp('/contacts/import');
    const user = userEvent.setup();
    await user.upload(await screen.findByTestId('contacts-import-file'), new File(['a'], 'lista.xlsx'));
    await user.click(await screen.findByTestId('contacts-import-submit'));
    expect(await screen.findByText('Importação concluída!')).toBeInTheDocument();
    expect(screen.getByTestId('contacts-import-imported')).toHaveTextContent('Importados: 2');
  });
});
