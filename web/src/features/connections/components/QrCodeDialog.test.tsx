/**
 * The pairing dialog's "link with phone number instead" (issue 17) and the session reasons under
 * the status: the number checked by the server, the code shown big and live, closing when
 * CONNECTED, in every language.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../lib/i18n';
import { adminAuth } from '../../../test/fixtures';
import { renderApp } from '../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../test/server';
import { lastSocket } from '../../../test/socket';
import { connectionFixture } from '../test/fixtures';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../test/socket')).ioMock }));

const QR = 'data:image/png;base64,AAAA';

function server(connections: () => unknown[], routes: Record<string, MockHandler> = {}) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => adminAuth(),
    'GET /queue': () => [],
    'GET /whatsapp': () => connections(),
    'GET /settings': () => [],
    ...routes,
  });
}

/** The server's session event for connection 1. */
function session(seq: number, overrides: Record<string, unknown>) {
  act(() => lastSocket().serverEmit('company-1-whatsappSession', { action: 'update', seq, session: connectionFixture(1, overrides) }));
}

beforeEach(async () => {
  await setLanguage('pt');
});

describe('linking with a phone number', () => {
  it('asks for a code, shows it big as XXXX-XXXX with the instructions, live, and closes when CONNECTED', async () => {
    let list = [connectionFixture(1, { status: 'qrcode', qrcode: QR })];
    const api = server(() => list, {
      'POST /whatsappsession/:id/paircode': () => undefined,
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-qr-1'));
    const dialog = await screen.findByTestId('qrcode-dialog');
    expect(within(dialog).getByTestId('qrcode-image')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('qrcode-link-phone'));
    expect(dialog).toHaveTextContent('Conectar com número de telefone: Conexão 1');
    expect(within(dialog).queryByTestId('qrcode-image')).not.toBeInTheDocument();

    await user.type(within(dialog).getByTestId('pair-code-number'), '+55 11 98888-7777');
    await user.click(within(dialog).getByTestId('pair-code-request'));
    await waitFor(() => expect(api.find('POST', '/whatsappsession/1/paircode')).toHaveLength(1));
    expect(api.find('POST', '/whatsappsession/1/paircode')[0].body).toEqual({ number: '+55 11 98888-7777' });
    // Waiting for the code: the QR going away (PAIRING) does not close the dialog.
    expect(await within(dialog).findByTestId('pair-code-waiting')).toBeInTheDocument();
    list = [connectionFixture(1, { status: 'PAIRING', qrcode: '', pairingCode: 'ABCD2345' })];
    session(3, { status: 'PAIRING', qrcode: '', pairingCode: 'ABCD2345' });
    const code = await within(dialog).findByTestId('pair-code');
    expect(code).toHaveTextContent('ABCD-2345');
    expect(dialog).toHaveTextContent('Aparelhos conectados > Conectar um aparelho > Conectar com número de telefone');
    expect(dialog).toHaveTextContent('Código para +55 11 98888-7777');
    expect(screen.getByTestId('qrcode-dialog')).toBeInTheDocument();

    // A new code replaces the old one once it arrives; the old one is not shown meanwhile.
    await user.click(within(dialog).getByTestId('pair-code-new'));
    await waitFor(() => expect(api.find('POST', '/whatsappsession/1/paircode')).toHaveLength(2));
    expect(await within(dialog).findByTestId('pair-code-waiting')).toBeInTheDocument();
    expect(within(dialog).queryByTestId('pair-code')).not.toBeInTheDocument();
    session(4, { status: 'PAIRING', qrcode: '', pairingCode: 'WXYZ6789' });
    expect(await within(dialog).findByTestId('pair-code')).toHaveTextContent('WXYZ-6789');

    list = [connectionFixture(1, { status: 'CONNECTED', number: '5511988887777' })];
    session(5, { status: 'CONNECTED', number: '5511988887777' });
    await waitFor(() => expect(screen.queryByTestId('qrcode-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('connections-status-1')).toHaveTextContent('Conectado');
    expect(screen.getByTestId('connections-row-1')).toHaveTextContent('5511988887777');
  });

  it('shows the server refusing the number on the field, and other errors as a toast', async () => {
    let answer = reply(422, { error: 'ERR_WAPP_INVALID_CONTACT', message: 'no', fields: [{ field: 'number', code: 'INVALID_FORMAT' }] });
    const api = server(() => [connectionFixture(1, { status: 'qrcode', qrcode: QR })], {
      'POST /whatsappsession/:id/paircode': () => answer,
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-qr-1'));
    const dialog = await screen.findByTestId('qrcode-dialog');
    await user.click(within(dialog).getByTestId('qrcode-link-phone'));
    await user.type(within(dialog).getByTestId('pair-code-number'), '1234');
    await user.click(within(dialog).getByTestId('pair-code-request'));
    expect(await within(dialog).findByText('Informe o número com código do país: de 8 a 15 dígitos.')).toBeInTheDocument();
    expect(within(dialog).getByTestId('pair-code-number')).toHaveAttribute('aria-invalid', 'true');
    // Still asking for the number.
    expect(within(dialog).queryByTestId('pair-code-waiting')).not.toBeInTheDocument();

    answer = reply(502, { error: 'ERR_WAPP_NOT_INITIALIZED', message: 'no' });
    await user.clear(within(dialog).getByTestId('pair-code-number'));
    await user.type(within(dialog).getByTestId('pair-code-number'), '5511988887777');
    await user.click(within(dialog).getByTestId('pair-code-request'));
    expect(await screen.findByTestId('toast-error')).toHaveTextContent('Esta conexão não foi inicializada');
    expect(api.find('POST', '/whatsappsession/1/paircode')).toHaveLength(2);

    // Back to the QR code.
    await user.click(within(dialog).getByTestId('pair-code-use-qr'));
    expect(within(dialog).getByTestId('qrcode-image')).toBeInTheDocument();
  });

  it('reopens on the code while pairing, and closes when the code expires', async () => {
    server(() => [connectionFixture(1, { status: 'PAIRING', qrcode: '', pairingCode: 'ABCD2345' })]);
    renderApp('/connections');
    const user = userEvent.setup();
    // PAIRING shows the code button next to Disconnect.
    expect(await screen.findByTestId('connections-disconnect-1')).toBeInTheDocument();
    await user.click(screen.getByTestId('connections-paircode-1'));
    const dialog = await screen.findByTestId('qrcode-dialog');
    expect(within(dialog).getByTestId('pair-code')).toHaveTextContent('ABCD-2345');
    // The number it was asked for is not known here: no "code for".
    expect(dialog).not.toHaveTextContent('Código para');
    expect(within(dialog).queryByTestId('pair-code-new')).not.toBeInTheDocument();
    session(2, { status: 'TIMEOUT', qrcode: '' });
    await waitFor(() => expect(screen.queryByTestId('qrcode-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('connections-status-1')).toHaveTextContent('Tempo esgotado');
  });

  it('shows a refused code in the dialog', async () => {
    server(() => [connectionFixture(1, { status: 'qrcode', qrcode: QR })], {
      'POST /whatsappsession/:id/paircode': () => undefined,
    });
    renderApp('/connections');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('connections-qr-1'));
    const dialog = await screen.findByTestId('qrcode-dialog');
    await user.click(within(dialog).getByTestId('qrcode-link-phone'));
    await user.type(within(dialog).getByTestId('pair-code-number'), '5511988887777');
    await user.click(within(dialog).getByTestId('pair-code-request'));
    await within(dialog).findByTestId('pair-code-waiting');
    session(2, { status: 'qrcode', qrcode: QR, sessionReason: { kind: 'pairCodeError', throttled: true, message: 'rate-overlimit' } });
    expect(await within(dialog).findByTestId('pair-code-reason')).toHaveTextContent('Muitos códigos pedidos: aguarde antes de pedir outro');
  });

  it('is in every language', async () => {
    const texts = {
      en: ['Link with phone number instead', 'WhatsApp > Linked devices > Link a device > Link with phone number instead'],
      es: ['Vincular con el número de teléfono', 'WhatsApp > Dispositivos vinculados > Vincular un dispositivo > Vincular con el número de teléfono'],
      tr: ['Bunun yerine telefon numarasıyla bağla', 'WhatsApp > Bağlı cihazlar > Cihaz bağla > Bunun yerine telefon numarasıyla bağla'],
    } as const;
    for (const [language, [link, path]] of Object.entries(texts)) {
      await setLanguage(language as keyof typeof texts);
      server(() => [connectionFixture(1, { status: 'PAIRING', qrcode: '', pairingCode: 'ABCD2345' })]);
      const view = renderApp('/connections');
      const user = userEvent.setup();
      await user.click(await screen.findByTestId('connections-paircode-1'));
      const dialog = await screen.findByTestId('qrcode-dialog');
      expect(dialog).toHaveTextContent(path);
      await user.click(within(dialog).getByTestId('pair-code-other-number'));
      expect(within(dialog).getByTestId('pair-code-use-qr')).toBeInTheDocument();
      await user.click(within(dialog).getByTestId('pair-code-use-qr'));
      expect(within(dialog).getByTestId('qrcode-link-phone')).toHaveTextContent(link);
      view.unmount();
    }
  });
});

describe('the session reason under the status', () => {
  it('says why, translated, and nothing when there is no reason', async () => {
    server(() => [
      connectionFixture(1, { status: 'DISCONNECTED', sessionReason: { kind: 'loggedOut' } }),
      connectionFixture(2, { status: 'DISCONNECTED', sessionReason: { kind: 'temporaryBan', code: 101 }, sessionUntil: '2026-03-04T15:07:00' }),
      connectionFixture(3, { status: 'DISCONNECTED', sessionReason: { kind: 'replaced' } }),
      connectionFixture(4, { status: 'DISCONNECTED', sessionReason: { kind: 'outdated' } }),
      connectionFixture(5, { status: 'TIMEOUT', sessionReason: { kind: 'qrExhausted' } }),
      connectionFixture(6, { status: 'OPENING', sessionReason: { kind: 'reconnecting' } }),
      connectionFixture(7, { status: 'DISCONNECTED', sessionReason: { kind: 'failed', message: 'stream error 500' } }),
      connectionFixture(8, { status: 'CONNECTED' }),
      connectionFixture(9, { status: 'DISCONNECTED', sessionReason: { kind: 'somethingNew' } }),
    ]);
    renderApp('/connections');
    const reason = async (id: number) => (await screen.findByTestId(`connections-reason-${id}`)).textContent;
    expect(await reason(1)).toBe('Desconectado pelo celular');
    expect(await reason(2)).toBe('Banido até 04/03/26 15:07');
    expect(await reason(3)).toBe('Outra sessão assumiu a conexão');
    expect(await reason(4)).toBe('O WhatsApp pede uma versão mais nova');
    expect(await reason(5)).toBe('Os QR Codes expiraram');
    expect(await reason(6)).toBe('Reconectando...');
    expect(await reason(7)).toBe('Falha na conexão: stream error 500');
    expect(screen.queryByTestId('connections-reason-8')).not.toBeInTheDocument();
    // A reason this version does not know is shown as none (the row still is).
    expect(screen.getByTestId('connections-row-9')).toBeInTheDocument();
    expect(screen.queryByTestId('connections-reason-9')).not.toBeInTheDocument();
  });

  it('follows the session live, in English too', async () => {
    await setLanguage('en');
    server(() => [connectionFixture(1, { status: 'CONNECTED' })]);
    renderApp('/connections');
    await screen.findByTestId('connections-row-1');
    expect(screen.queryByTestId('connections-reason-1')).not.toBeInTheDocument();
    session(1, { status: 'DISCONNECTED', sessionReason: { kind: 'loggedOut' } });
    expect(await screen.findByTestId('connections-reason-1')).toHaveTextContent('Logged out from the phone');
    session(2, { status: 'DISCONNECTED', sessionReason: { kind: 'temporaryBan', code: 101 }, sessionUntil: '2026-03-04T15:07:00' });
    expect(await screen.findByTestId('connections-reason-1')).toHaveTextContent('Banned until 04/03/26 15:07');
    session(3, { status: 'CONNECTED', sessionReason: null });
    await waitFor(() => expect(screen.queryByTestId('connections-reason-1')).not.toBeInTheDocument());
  });
});
