import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setLanguage } from '../../../lib/i18n';
import { mockServer, type MockHandler } from '../../../test/server';
import type { NodeKind, NodeType } from '../types';
import type { DialogTarget } from './NodeDialog';
import { EMPTY_OPENAI_SETTINGS } from '../utils/nodes';
import { NodeDialog } from './NodeDialog';

function server(routes: Record<string, MockHandler> = {}) {
  return mockServer({
    'GET /queue': () => [
      { id: 3, name: 'Suporte', color: '#ff0000' },
      { id: 4, name: 'Vendas', color: '#00ff00' },
    ],
    'GET /queueIntegration/': () => [],
    ...routes,
  });
}

/**
 * Opens the dialog of `type` (editing `data` when given: a fixture, possibly as loose as an old
 * stored graph); returns what it submits.
 */
function openDialog(type: NodeType, data: object | null = null) {
  const onSubmit = vi.fn<(data: Record<string, unknown>) => void>();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <NodeDialog target={{ type, data } as DialogTarget} onSubmit={(kind: NodeKind) => onSubmit(kind.data as Record<string, unknown>)} onClose={() => {}} />
    </QueryClientProvider>,
  );
  return { dialog: screen.getByTestId(`node-dialog-${type}`), onSubmit, user: userEvent.setup() };
}

/** The text field with `testId` (under its input) inside `dialog`. */
const field = (dialog: HTMLElement, testId: string) => within(dialog).getByTestId(testId);

async function typeInto(dialog: HTMLElement, user: ReturnType<typeof userEvent.setup>, values: Record<string, string>) {
  for (const [testId, value] of Object.entries(values)) {
    await user.clear(field(dialog, testId));
    if (value) await user.type(field(dialog, testId), value);
  }
}

const helperOf = (dialog: HTMLElement, testId: string) => {
  const describedBy = field(dialog, testId).getAttribute('aria-describedby');
  return describedBy ? document.getElementById(describedBy)?.textContent : null;
};

beforeEach(async () => {
  await setLanguage('pt');
});

describe('typebot node dialog', () => {
  it('refuses a missing name and slug, a non-http URL and negative numbers with the translated texts', async () => {
    server();
    const { dialog, onSubmit, user } = openDialog('typebot');
    expect(within(dialog).queryByTestId('node-typebot-integration')).not.toBeInTheDocument();
    await typeInto(dialog, user, { 'node-typebot-url': 'ftp://bots.example.com', 'node-typebot-expires': '-1', 'node-typebot-delay': '1.5' });
    await user.click(within(dialog).getByTestId('node-dialog-save'));

    await waitFor(() => expect(helperOf(dialog, 'node-typebot-url')).toBe('Digite uma URL que comece com http:// ou https://'));
    expect(helperOf(dialog, 'node-typebot-name')).toBe('Obrigatório');
    expect(helperOf(dialog, 'node-typebot-slug')).toBe('Obrigatório');
    expect(helperOf(dialog, 'node-typebot-expires')).toBe('Digite um número inteiro maior ou igual a 0');
    expect(helperOf(dialog, 'node-typebot-delay')).toBe('Digite um número inteiro maior ou igual a 0');

    await typeInto(dialog, user, { 'node-typebot-url': 'bots.example.com' });
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(helperOf(dialog, 'node-typebot-url')).toBe('Digite uma URL que comece com http:// ou https://'));
    await typeInto(dialog, user, { 'node-typebot-url': '' });
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(helperOf(dialog, 'node-typebot-url')).toBe('Obrigatório'));
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('shows the URL message in the chosen language', async () => {
    server();
    await setLanguage('en');
    const { dialog, user } = openDialog('typebot');
    await typeInto(dialog, user, { 'node-typebot-url': 'www.example.com' });
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(helperOf(dialog, 'node-typebot-url')).toBe('Enter a URL starting with http:// or https://'));
    expect(helperOf(dialog, 'node-typebot-slug')).toBe('Required');
  });

  it('saves the typed settings, the numbers as numbers and the defaults when left alone', async () => {
    server();
    const { dialog, onSubmit, user } = openDialog('typebot');
    expect(field(dialog, 'node-typebot-expires')).toHaveValue(1);
    expect(field(dialog, 'node-typebot-delay')).toHaveValue(1000);
    await typeInto(dialog, user, {
      'node-typebot-name': 'Vendas bot',
      'node-typebot-url': ' https://bots.example.com/ ',
      'node-typebot-slug': 'vendas-abc',
      'node-typebot-delay': '250',
      'node-typebot-keyword-finish': 'sair',
      'node-typebot-keyword-restart': 'reiniciar',
      'node-typebot-unknown-message': 'Não entendi',
      'node-typebot-restart-message': 'Recomeçando...',
    });
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0]).toEqual({
      typebotIntegration: {
        type: 'typebot',
        name: 'Vendas bot',
        urlN8N: 'https://bots.example.com/',
        typebotSlug: 'vendas-abc',
        typebotExpires: 1,
        typebotDelayMessage: 250,
        typebotKeywordFinish: 'sair',
        typebotKeywordRestart: 'reiniciar',
        typebotUnknownMessage: 'Não entendi',
        typebotRestartMessage: 'Recomeçando...',
      },
    });
  });

  it('pre-fills from the node being edited (numeric text too) and keeps its other data', async () => {
    server();
    const data = {
      label: 'kept',
      typebotIntegration: { id: 12, name: 'Suporte bot', urlN8N: 'http://typebot.local', typebotSlug: 'suporte', typebotExpires: '0', typebotDelayMessage: '500', typebotKeywordFinish: '#sair' },
    };
    const { dialog, onSubmit, user } = openDialog('typebot', data);
    expect(field(dialog, 'node-typebot-name')).toHaveValue('Suporte bot');
    expect(field(dialog, 'node-typebot-url')).toHaveValue('http://typebot.local');
    expect(field(dialog, 'node-typebot-slug')).toHaveValue('suporte');
    expect(field(dialog, 'node-typebot-expires')).toHaveValue(0);
    expect(field(dialog, 'node-typebot-delay')).toHaveValue(500);
    expect(field(dialog, 'node-typebot-keyword-finish')).toHaveValue('#sair');
    expect(field(dialog, 'node-typebot-keyword-restart')).toHaveValue('');

    await typeInto(dialog, user, { 'node-typebot-expires': '30' });
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0]).toEqual({
      label: 'kept',
      typebotIntegration: {
        id: 12,
        type: 'typebot',
        name: 'Suporte bot',
        urlN8N: 'http://typebot.local',
        typebotSlug: 'suporte',
        typebotExpires: 30,
        typebotDelayMessage: 500,
        typebotKeywordFinish: '#sair',
        typebotKeywordRestart: '',
        typebotUnknownMessage: '',
        typebotRestartMessage: '',
      },
    });
  });

  it('fills the form from an existing queue integration when there are some', async () => {
    server({
      'GET /queueIntegration/': () => [
        { id: 7, name: 'Bot da loja', type: 'typebot', urlN8N: 'https://typebot.loja.com', typebotSlug: 'loja', typebotExpires: 10, typebotDelayMessage: '2000', typebotRestartMessage: 'De novo!' },
        { id: 8, name: 'Webhook', type: 'n8n', urlN8N: 'https://n8n.loja.com' },
      ],
    });
    const { dialog, onSubmit, user } = openDialog('typebot');
    await user.click(await within(dialog).findByTestId('node-typebot-integration'));
    expect(screen.queryByTestId('node-typebot-integration-option-8')).not.toBeInTheDocument();
    await user.click(await screen.findByTestId('node-typebot-integration-option-7'));
    expect(field(dialog, 'node-typebot-url')).toHaveValue('https://typebot.loja.com');
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0].typebotIntegration).toEqual({
      type: 'typebot',
      name: 'Bot da loja',
      urlN8N: 'https://typebot.loja.com',
      typebotSlug: 'loja',
      typebotExpires: 10,
      typebotDelayMessage: 2000,
      typebotKeywordFinish: '',
      typebotKeywordRestart: '',
      typebotUnknownMessage: '',
      typebotRestartMessage: 'De novo!',
    });
  });
});

describe('openai node dialog', () => {
  const settings = { name: 'Assistente', prompt: 'Ajude o cliente', apiKey: 'sk-1', voice: 'texto', maxTokens: 100, temperature: 1, maxMessages: 10 };

  it('saves the chosen hand-over queue id', async () => {
    server();
    const { dialog, onSubmit, user } = openDialog('openai');
    expect(within(dialog).getByLabelText('Fila ao transferir para um atendente')).toBeInTheDocument();
    await typeInto(dialog, user, { 'node-openai-name': 'Assistente', 'node-openai-prompt': 'Ajude o cliente', 'node-openai-key': 'sk-1' });
    await user.click(within(dialog).getByTestId('node-openai-queue'));
    await user.click(await screen.findByTestId('node-openai-queue-option-4'));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0]).toEqual({ ...EMPTY_OPENAI_SETTINGS, typebotIntegration: { ...settings, queueId: 4, voiceKey: '', voiceRegion: '' } });
  });

  it('pre-fills the stored queue and saves null when set back to none', async () => {
    server();
    const { dialog, onSubmit, user } = openDialog('openai', { typebotIntegration: { ...settings, queueId: '3' } });
    await waitFor(() => expect(within(dialog).getByTestId('node-openai-queue')).toHaveTextContent('Suporte'));
    await user.click(within(dialog).getByTestId('node-openai-queue'));
    await user.click(await screen.findByTestId('node-openai-queue-option-'));
    await user.click(within(dialog).getByTestId('node-dialog-save'));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0]).toEqual({ ...EMPTY_OPENAI_SETTINGS, typebotIntegration: { ...settings, queueId: null, voiceKey: '', voiceRegion: '' } });
  });
});
