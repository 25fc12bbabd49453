/**
 * The message input's media parts (voice notes, camera, emoji picker) and the message rendering
 * rules (acks, audio speed, the 24-hour notice). The browser's media devices are stood in for
 * (jsdom has none); the MP3 encoder and everything of ours runs for real.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { setLanguage } from '../../../../lib/i18n';
import { renderApp } from '../../../../test/render';
import { mockServer, reply, type MockHandler } from '../../../../test/server';
import { stubObjectUrls } from '../../../../test/object-urls';
import { stubWidth } from '../../../../test/layout';
import { inboxAuth, messageFixture, ticketFixture } from '../../../../test/inbox-fixtures';
import { looksLikeMp3 } from '../audio/mp3';
import { ackState, nextPlaybackRate, storedPlaybackRate } from '../format';

vi.mock('socket.io-client', async () => ({ io: (await import('../../../../test/socket')).ioMock }));

function ticketServer(routes: Record<string, MockHandler> = {}, ticket = ticketFixture(7)) {
  localStorage.setItem('token', 'stored');
  return mockServer({
    'GET /public-settings/:key': () => reply(404, { error: 'ERR_NOT_FOUND', message: 'no' }),
    'GET /auth/me': () => inboxAuth(),
    'GET /tags/list': () => [],
    'GET /users/list': () => [],
    'GET /whatsapp': () => [],
    'GET /tickets': () => ({ tickets: [ticket], hasMore: false, count: 1, nextCursor: null }),
    'GET /tickets/u/:uuid': () => ticket,
    ...routes,
  });
}

const noMessages = () => ({ messages: [], hasMore: false, nextCursor: null });

/** A media track that records whether it was stopped. */
function fakeStream() {
  const track = { stop: vi.fn(), kind: 'audio' };
  return { stream: { getTracks: () => [track] } as unknown as MediaStream, track };
}

function stubMediaDevices(getUserMedia: (constraints: MediaStreamConstraints) => Promise<MediaStream>) {
  const spy = vi.fn(getUserMedia);
  Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: { getUserMedia: spy } });
  return spy;
}

/** MediaRecorder: hands one chunk of "recorded" bytes on stop. */
class FakeMediaRecorder extends EventTarget {
  static instances: FakeMediaRecorder[] = [];
  state: 'inactive' | 'recording' = 'inactive';
  mimeType = 'audio/webm';
  readonly stream: MediaStream;
  constructor(stream: MediaStream) {
    super();
    this.stream = stream;
    FakeMediaRecorder.instances.push(this);
  }
  start() {
    this.state = 'recording';
  }
  stop() {
    this.state = 'inactive';
    const data = new Blob([new Uint8Array([0x1a, 0x45, 0xdf, 0xa3])], { type: 'audio/webm' });
    this.dispatchEvent(Object.assign(new Event('dataavailable'), { data }));
    this.dispatchEvent(new Event('stop'));
  }
}

/** Web Audio's decoder: the recording "decodes" to `seconds` of a stereo 48 kHz sine wave. */
function stubAudioDecoding(seconds: number) {
  const sampleRate = 48_000;
  const left = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < left.length; i++) left[i] = 0.4 * Math.sin((2 * Math.PI * 330 * i) / sampleRate);
  const right = left.map((v) => v / 2);
  const close = vi.fn(async () => undefined);
  class FakeAudioContext {
    decodeAudioData = vi.fn(async () => ({ sampleRate, numberOfChannels: 2, getChannelData: (i: number) => (i === 0 ? left : right) }));
    close = close;
  }
  vi.stubGlobal('AudioContext', FakeAudioContext);
  return { close };
}

let urls: ReturnType<typeof stubObjectUrls>;
beforeEach(async () => {
  urls = stubObjectUrls();
  FakeMediaRecorder.instances = [];
  vi.stubGlobal('MediaRecorder', FakeMediaRecorder);
  await setLanguage('pt');
});
afterEach(() => {
  urls.restore();
  vi.restoreAllMocks();
  Reflect.deleteProperty(navigator, 'mediaDevices');
});

describe('voice notes', () => {
  it('records with a timer from 00:00 and sends the MP3 as audio-<ts>.mp3 through the multipart send', async () => {
    const { stream, track } = fakeStream();
    const getUserMedia = stubMediaDevices(async () => stream);
    const { close } = stubAudioDecoding(1.5);
    const server = ticketServer({
      'GET /messages/:uuid': noMessages,
      'POST /messages/:ticketId': () => [messageFixture(500, { fromMe: true, userId: 1, mediaType: 'audio', body: '' })],
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    // The microphone stands where the send button is while the input is empty.
    const record = await screen.findByTestId('audio-record');
    expect(screen.queryByTestId('message-send')).not.toBeInTheDocument();
    await user.click(record);
    const recorder = await screen.findByTestId('audio-recorder');
    expect(recorder).toHaveAttribute('data-state', 'recording');
    expect(getUserMedia).toHaveBeenCalledWith({ audio: true });
    expect(screen.getByTestId('audio-timer')).toHaveTextContent('00:00');
    // The text input gives the row to the recorder.
    expect(screen.queryByTestId('message-input')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('audio-send'));
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    const form = server.find('POST', '/messages/7')[0].body as FormData;
    const file = form.get('medias') as File;
    expect(file.name).toMatch(/^audio-\d+\.mp3$/);
    expect(file.type).toBe('audio/mpeg');
    expect(file.size).toBeGreaterThanOrEqual(10_000);
    expect(looksLikeMp3(new Uint8Array(await file.arrayBuffer()))).toBe(true);
    expect(form.get('body')).toBe('');
    expect(track.stop).toHaveBeenCalled();
    expect(close).toHaveBeenCalled();
    expect(await screen.findByTestId('message-500')).toBeInTheDocument();
    expect(await screen.findByTestId('audio-record')).toHaveAttribute('data-state', 'idle');
    expect(screen.getByTestId('message-input')).toBeInTheDocument();
  });

  it('discards a recording under 10000 bytes with a toast', async () => {
    stubMediaDevices(async () => fakeStream().stream);
    stubAudioDecoding(0.2);
    const server = ticketServer({ 'GET /messages/:uuid': noMessages });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('audio-record'));
    await user.click(await screen.findByTestId('audio-send'));
    expect(await screen.findByText('Áudio muito curto: grave novamente.')).toBeInTheDocument();
    expect(await screen.findByTestId('audio-record')).toHaveAttribute('data-state', 'cancelled');
    expect(server.find('POST', '/messages/7')).toHaveLength(0);
  });

  it('cancels: the microphone is released and nothing is sent', async () => {
    const { stream, track } = fakeStream();
    stubMediaDevices(async () => stream);
    stubAudioDecoding(2);
    const server = ticketServer({ 'GET /messages/:uuid': noMessages });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('audio-record'));
    await user.click(await screen.findByTestId('audio-cancel'));
    expect(await screen.findByTestId('audio-record')).toHaveAttribute('data-state', 'cancelled');
    expect(track.stop).toHaveBeenCalled();
    expect(FakeMediaRecorder.instances[0].state).toBe('inactive');
    expect(server.find('POST', '/messages/7')).toHaveLength(0);
    expect(screen.getByTestId('message-input')).toBeInTheDocument();
  });

  it('a refused microphone shows the error and stays idle', async () => {
    stubMediaDevices(async () => {
      throw new DOMException('Permission denied', 'NotAllowedError');
    });
    ticketServer({ 'GET /messages/:uuid': noMessages });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('audio-record'));
    await waitFor(() => expect(document.querySelector('[role="alert"]')).not.toBeNull());
    expect(screen.getByTestId('audio-record')).toHaveAttribute('data-state', 'idle');
  });

  it('typing swaps the microphone for the send button', async () => {
    ticketServer({ 'GET /messages/:uuid': noMessages });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.type(await screen.findByTestId('message-input'), 'Oi');
    expect(screen.getByTestId('message-send')).toBeEnabled();
    expect(screen.queryByTestId('audio-record')).not.toBeInTheDocument();
  });
});

describe('a narrow input', () => {
  it('keeps emoji, text and send, and offers the other tools in the "more" menu', async () => {
    // A 390 px phone: every tool but the emoji goes to the menu; the text field keeps its room.
    const restore = stubWidth(390);
    try {
      const server = ticketServer({ 'GET /messages/:uuid': noMessages, 'POST /messages/:ticketId': ({ body }) => messageFixture(50, { ...(body as object), fromMe: true }) });
      renderApp('/tickets/uuid-7');
      const composer = await screen.findByTestId('message-composer');
      expect(within(composer).getByTestId('input-emoji')).toBeInTheDocument();
      for (const tool of ['attach', 'camera', 'private', 'sign', 'send-contact']) expect(within(composer).queryByTestId(`input-${tool}`)).not.toBeInTheDocument();
      const user = userEvent.setup();
      await user.click(within(composer).getByTestId('input-more'));
      const menu = await screen.findByTestId('input-more-menu');
      // Attach is a label of the file input: the picker opens from the menu too.
      expect(within(menu).getByTestId('input-attach')).toHaveAttribute('for', screen.getByTestId('input-file').id);
      const sign = within(menu).getByTestId('input-sign');
      expect(sign).toHaveAttribute('role', 'menuitemcheckbox');
      expect(sign).toHaveAttribute('aria-checked', 'true');
      await user.click(sign);
      await waitFor(() => expect(screen.queryByTestId('input-more-menu')).not.toBeInTheDocument());
      await user.type(screen.getByTestId('message-input'), 'Sem assinatura{Enter}');
      await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
      expect(server.find('POST', '/messages/7')[0].body).toEqual({ body: 'Sem assinatura', signMessage: false });
      await user.click(within(composer).getByTestId('input-more'));
      expect(within(await screen.findByTestId('input-more-menu')).getByTestId('input-sign')).toHaveAttribute('aria-checked', 'false');
    } finally {
      restore();
    }
  });
});

describe('camera capture', () => {
  it('opens the rear camera, takes a JPEG and sends it through the media preview with a caption', async () => {
    const { stream, track } = fakeStream();
    const getUserMedia = stubMediaDevices(async () => stream);
    const drawImage = vi.fn();
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation((() => ({ drawImage })) as unknown as HTMLCanvasElement['getContext']);
    vi.spyOn(HTMLCanvasElement.prototype, 'toBlob').mockImplementation(function (this: HTMLCanvasElement, callback: BlobCallback, type?: string) {
      callback(new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], { type }));
    });
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(async () => undefined);
    const server = ticketServer({
      'GET /messages/:uuid': noMessages,
      'POST /messages/:ticketId': () => [messageFixture(600, { fromMe: true, userId: 1, mediaType: 'image', body: 'foto da nota' })],
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('input-camera'));
    const dialog = await screen.findByTestId('camera-dialog');
    expect(getUserMedia).toHaveBeenCalledWith({ video: { facingMode: { ideal: 'environment' } }, audio: false });
    const capture = within(dialog).getByTestId('camera-capture');
    await waitFor(() => expect(capture).toBeEnabled());
    await user.click(capture);
    expect(drawImage).toHaveBeenCalled();
    // The camera is released once the dialog closes.
    await waitFor(() => expect(track.stop).toHaveBeenCalled());

    const preview = await screen.findByTestId('media-preview');
    expect(within(preview).getByText(/^camera-\d+\.jpg$/)).toBeInTheDocument();
    await user.type(within(preview).getByTestId('media-caption-0'), 'foto da nota');
    await user.click(within(preview).getByTestId('media-send'));
    await waitFor(() => expect(server.find('POST', '/messages/7')).toHaveLength(1));
    const form = server.find('POST', '/messages/7')[0].body as FormData;
    const file = form.get('medias') as File;
    expect(file.type).toBe('image/jpeg');
    expect(file.name).toMatch(/^camera-\d+\.jpg$/);
    expect(form.get('body')).toBe('foto da nota');
  });

  it('a refused camera closes the dialog with the error', async () => {
    stubMediaDevices(async () => {
      throw new DOMException('Permission denied', 'NotAllowedError');
    });
    ticketServer({ 'GET /messages/:uuid': noMessages });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('input-camera'));
    await waitFor(() => expect(screen.queryByTestId('camera-dialog')).not.toBeInTheDocument());
    expect(document.querySelector('[role="alert"]')).not.toBeNull();
  });
});

describe('emoji picker', () => {
  it('loads the picker on demand and inserts the chosen emoji into the text', async () => {
    ticketServer({ 'GET /messages/:uuid': noMessages });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const input = await screen.findByTestId('message-input');
    await user.type(input, 'Oi ');
    await user.click(screen.getByTestId('input-emoji'));
    const picker = await screen.findByTestId('emoji-picker');
    // Portuguese emoji names (the pt dataset) once the chunk has loaded.
    const search = await within(picker).findByRole('textbox', { name: 'Buscar emoji' }, { timeout: 10_000 });
    expect(search).toHaveAttribute('placeholder', 'Buscar emoji');
    await user.type(search, 'polegar para cima');
    // (A plain selector: role queries walk the picker's large stylesheet on every try.)
    const thumbsUp = await waitFor(() => {
      const cell = picker.querySelector<HTMLElement>('[role="gridcell"][aria-label="polegar para cima"]');
      if (!cell) throw new Error('not yet');
      return cell;
    });
    await user.click(thumbsUp);
    expect(input).toHaveValue('Oi 👍');
  });
});

describe('message rendering', () => {
  it('shows ack icons (audio: played) and cycles the audio speed, kept in localStorage', async () => {
    ticketServer({
      'GET /messages/:uuid': () => ({
        messages: [
          messageFixture(1, { fromMe: true, userId: 1, ack: 0 }),
          messageFixture(2, { fromMe: true, userId: 1, ack: 1 }),
          messageFixture(3, { fromMe: true, userId: 1, ack: 2 }),
          messageFixture(4, { fromMe: true, userId: 1, ack: 4 }),
          messageFixture(5, { fromMe: true, userId: 1, ack: 3, mediaType: 'audio', mediaUrl: '/messages/5/media', body: '' }),
          messageFixture(6, { fromMe: true, userId: 1, ack: 5 }),
        ],
        hasMore: false,
        nextCursor: null,
      }),
      'GET /messages/5/media': () => new Response(new Uint8Array([0xff, 0xfb, 0x90, 0]), { status: 200, headers: { 'Content-Type': 'audio/mpeg' } }),
    });
    renderApp('/tickets/uuid-7');
    const user = userEvent.setup();
    const state = async (id: number) => within(await screen.findByTestId(`message-${id}`)).getByTestId('message-ack');
    expect(await state(1)).toHaveAttribute('data-state', 'clock');
    expect(await state(2)).toHaveAttribute('data-state', 'sent');
    expect(await state(3)).toHaveAttribute('data-state', 'delivered');
    expect(await state(4)).toHaveAttribute('data-state', 'read');
    expect(await state(5)).toHaveAttribute('data-state', 'played');
    expect(await state(5)).toHaveAttribute('aria-label', 'Reproduzida');
    expect(await state(6)).toHaveAttribute('data-state', 'read');

    const speed = await screen.findByTestId('message-audio-speed-5');
    const audio = screen.getByTestId('message-audio-5') as HTMLAudioElement;
    expect(speed).toHaveTextContent('1x');
    await user.click(speed);
    expect(speed).toHaveTextContent('1.5x');
    expect(audio.playbackRate).toBe(1.5);
    expect(localStorage.getItem('audioPlaybackRate')).toBe('1.5');
    await user.click(speed);
    await user.click(speed);
    expect(speed).toHaveTextContent('0.5x');
    expect(audio.playbackRate).toBe(0.5);
    expect(localStorage.getItem('audioPlaybackRate')).toBe('0.5');
  });

  it('puts the 24-hour notice on every contact message of a Facebook or Instagram ticket only', async () => {
    const messages = {
      messages: [messageFixture(1), messageFixture(2, { fromMe: true, userId: 1 }), messageFixture(3)],
      hasMore: false,
      nextCursor: null,
    };
    ticketServer({ 'GET /messages/:uuid': () => messages }, ticketFixture(7, { channel: 'instagram' }));
    renderApp('/tickets/uuid-7');
    expect(await screen.findByTestId('message-24h-1')).toHaveTextContent('Você tem 24 horas para responder a esta mensagem.');
    expect(screen.getByTestId('message-24h-3')).toBeInTheDocument();
    expect(screen.queryByTestId('message-24h-2')).not.toBeInTheDocument();
  });

  it('renders WhatsApp formatting in bubbles and quotes as elements, links clickable, no HTML from the text', async () => {
    const body = '*negrito* _itálico_ ~riscado~ `código` 2*3*4 snake_case\n```bloco\n*cru*```\n> citação\n- item\nveja https://ex.com/a_b <b>x</b>';
    const messages = {
      messages: [messageFixture(1, { body }), messageFixture(2, { body: 'ok', quotedMsg: { id: 1, body: '_citado_ https://ex.com', fromMe: false, isDeleted: false } })],
      hasMore: false,
      nextCursor: null,
    };
    ticketServer({ 'GET /messages/:uuid': () => messages });
    renderApp('/tickets/uuid-7');
    const bubble = await screen.findByTestId('message-body-1');
    expect(bubble.querySelector('strong')).toHaveTextContent('negrito');
    expect(bubble.querySelector('em')).toHaveTextContent('itálico');
    expect(bubble.querySelector('s')).toHaveTextContent('riscado');
    expect(bubble.querySelector('code')).toHaveTextContent('código');
    expect(bubble.querySelector('pre')).toHaveTextContent('bloco *cru*');
    expect(bubble.querySelector('pre strong')).toBeNull();
    expect(bubble.querySelector('[data-kind="quote"]')).toHaveTextContent('citação');
    expect(bubble.querySelector('[data-kind="bullet"]')).toHaveTextContent(/^•\s*item$/);
    expect(bubble).toHaveTextContent('2*3*4 snake_case');
    expect(bubble).not.toHaveTextContent('*negrito*');
    const link = within(bubble).getByRole('link', { name: 'https://ex.com/a_b' });
    expect(link).toHaveAttribute('href', 'https://ex.com/a_b');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(bubble.querySelector('b')).toBeNull();
    expect(bubble).toHaveTextContent('<b>x</b>');
    const quoted = screen.getByTestId('message-quoted-2');
    expect(quoted.querySelector('em')).toHaveTextContent('citado');
    expect(within(quoted).queryByRole('link')).toBeNull();
  });

  it('has no 24-hour notice on WhatsApp tickets', async () => {
    ticketServer({ 'GET /messages/:uuid': () => ({ messages: [messageFixture(1)], hasMore: false, nextCursor: null }) });
    renderApp('/tickets/uuid-7');
    await screen.findByTestId('message-1');
    expect(screen.queryByTestId('message-24h-1')).not.toBeInTheDocument();
  });
});

describe('display rules', () => {
  it('maps acks 0-5 (audio 3 and 4: played)', () => {
    expect([0, 1, 2, 3, 4, 5].map((ack) => ackState(ack, 'chat'))).toEqual(['clock', 'sent', 'delivered', 'read', 'read', 'read']);
    expect([0, 1, 2, 3, 4, 5].map((ack) => ackState(ack, 'audio'))).toEqual(['clock', 'sent', 'delivered', 'played', 'played', 'read']);
    expect(ackState(-1, 'chat')).toBe('clock');
  });

  it('cycles 0.5 → 1 → 1.5 → 2 → 0.5 and reads back only known speeds', () => {
    expect([0.5, 1, 1.5, 2].map(nextPlaybackRate)).toEqual([1, 1.5, 2, 0.5]);
    expect(nextPlaybackRate(3)).toBe(0.5);
    expect(storedPlaybackRate()).toBe(1);
    localStorage.setItem('audioPlaybackRate', '2');
    expect(storedPlaybackRate()).toBe(2);
    localStorage.setItem('audioPlaybackRate', '7');
    expect(storedPlaybackRate()).toBe(1);
  });
});
