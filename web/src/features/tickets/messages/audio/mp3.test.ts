import { describe, expect, it } from 'vitest';
import { encodeMp3, floatTo16BitPcm, looksLikeMp3, MIN_VOICE_NOTE_BYTES, mixDown, voiceNoteName } from './mp3';
import { formatElapsed, nextRecorderStatus, type RecorderStatus } from './recorder';

/** `seconds` of a sine wave at `hz`, as float samples. */
function sine(seconds: number, sampleRate: number, hz = 440, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate);
  return out;
}

describe('mp3 encoding', () => {
  it('encodes a second of a 44.1 kHz sine wave to a 128 kbps MPEG-1 Layer III stream', async () => {
    const bytes = await encodeMp3(floatTo16BitPcm(sine(1, 44_100)), 44_100);
    expect(looksLikeMp3(bytes)).toBe(true);
    // No ID3 tag: the stream starts with a frame header.
    expect(bytes[0]).toBe(0xff);
    expect(bytes[1] & 0xe0).toBe(0xe0);
    // MPEG version 1 (bits 11), layer III (bits 01).
    expect((bytes[1] >> 3) & 0b11).toBe(0b11);
    expect((bytes[1] >> 1) & 0b11).toBe(0b01);
    // Bitrate index 9 = 128 kbps; sample-rate index 0 = 44100 Hz.
    expect(bytes[2] >> 4).toBe(9);
    expect((bytes[2] >> 2) & 0b11).toBe(0);
    // 128 kbps is 16000 bytes a second, give or take a frame of padding and the flush.
    expect(bytes.length).toBeGreaterThan(14_000);
    expect(bytes.length).toBeLessThan(20_000);
  });

  it('encodes 48 kHz too (what browsers usually decode to), and a second passes the minimum size', async () => {
    const bytes = await encodeMp3(floatTo16BitPcm(sine(1, 48_000, 300)), 48_000);
    expect(looksLikeMp3(bytes)).toBe(true);
    expect((bytes[2] >> 2) & 0b11).toBe(1); // 48000 Hz
    expect(bytes.length).toBeGreaterThanOrEqual(MIN_VOICE_NOTE_BYTES);
  });

  it('a fraction of a second stays under the voice note minimum', async () => {
    const bytes = await encodeMp3(floatTo16BitPcm(sine(0.2, 48_000)), 48_000);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.length).toBeLessThan(MIN_VOICE_NOTE_BYTES);
  });

  it('recognises MP3 starts and refuses others', () => {
    expect(looksLikeMp3(new Uint8Array([0x49, 0x44, 0x33, 4]))).toBe(true);
    expect(looksLikeMp3(new Uint8Array([0xff, 0xfb, 0x90]))).toBe(true);
    expect(looksLikeMp3(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3]))).toBe(false); // webm
    expect(looksLikeMp3(new Uint8Array([0xff]))).toBe(false);
  });

  it('converts float samples to clipped 16-bit PCM and mixes channels down', () => {
    expect(Array.from(floatTo16BitPcm(new Float32Array([0, 1, -1, 2, -2, 0.5])))).toEqual([0, 32767, -32768, 32767, -32768, 16384]);
    const mixed = mixDown([new Float32Array([1, 0, 0.5]), new Float32Array([0, 0, -0.5])]);
    expect(Array.from(mixed)).toEqual([0.5, 0, 0]);
    const mono = new Float32Array([0.1]);
    expect(mixDown([mono])).toBe(mono);
    expect(mixDown([])).toHaveLength(0);
  });

  it('names the file audio-<ts>.mp3', () => {
    expect(voiceNoteName(1_700_000_000_000)).toBe('audio-1700000000000.mp3');
  });
});

describe('the recorder state machine and timer', () => {
  it('goes idle → recording → sending → idle, or recording → cancelled → recording', () => {
    let status: RecorderStatus = 'idle';
    status = nextRecorderStatus(status, 'start');
    expect(status).toBe('recording');
    expect(nextRecorderStatus(status, 'start')).toBe('recording');
    expect(nextRecorderStatus(status, 'done')).toBe('recording');
    expect(nextRecorderStatus(status, 'cancel')).toBe('cancelled');
    expect(nextRecorderStatus('cancelled', 'start')).toBe('recording');
    expect(nextRecorderStatus('cancelled', 'send')).toBe('cancelled');
    status = nextRecorderStatus(status, 'send');
    expect(status).toBe('sending');
    expect(nextRecorderStatus(status, 'cancel')).toBe('sending');
    expect(nextRecorderStatus(status, 'start')).toBe('sending');
    expect(nextRecorderStatus(status, 'done')).toBe('idle');
    expect(nextRecorderStatus('idle', 'send')).toBe('idle');
  });

  it('counts up as mm:ss from 00:00', () => {
    expect(formatElapsed(0)).toBe('00:00');
    expect(formatElapsed(999)).toBe('00:00');
    expect(formatElapsed(1000)).toBe('00:01');
    expect(formatElapsed(65_500)).toBe('01:05');
    expect(formatElapsed(3_600_000)).toBe('60:00');
    expect(formatElapsed(-5)).toBe('00:00');
  });
});
