/**
 * MP3 encoding of voice notes in the browser (spec 1 §9: 128 kbps). The LAME port is loaded on
 * first use, so it stays out of the main bundle. Input is mono PCM; callers mix channels down.
 */

/** Spec 1 §9: voice notes are encoded at 128 kbps. */
export const VOICE_NOTE_KBPS = 128;
/** Spec 1 §4: a recording smaller than this is discarded. */
export const MIN_VOICE_NOTE_BYTES = 10_000;
/** Samples per MPEG-1 Layer III frame: the encoder is fed in blocks of this size. */
const FRAME_SAMPLES = 1152;
/** Blocks encoded between two yields to the event loop (about 2.5 s of 48 kHz audio). */
const BLOCKS_PER_SLICE = 100;

/** Float samples in [-1, 1] to 16-bit PCM (clipped). */
export function floatTo16BitPcm(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    out[i] = s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff);
  }
  return out;
}

/** The average of the channels, as one mono channel. */
export function mixDown(channels: Float32Array[]): Float32Array {
  if (channels.length === 0) return new Float32Array(0);
  if (channels.length === 1) return channels[0];
  const length = Math.min(...channels.map((c) => c.length));
  const out = new Float32Array(length);
  for (const channel of channels) {
    for (let i = 0; i < length; i++) out[i] += channel[i] / channels.length;
  }
  return out;
}

function bytesOf(chunk: ArrayBufferView): Uint8Array {
  // The encoder hands out signed bytes; the file wants them as they are.
  return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Encodes mono 16-bit PCM at `sampleRate` to an MP3 byte stream. */
export async function encodeMp3(pcm: Int16Array, sampleRate: number, kbps: number = VOICE_NOTE_KBPS): Promise<Uint8Array<ArrayBuffer>> {
  const { Mp3Encoder } = await import('@breezystack/lamejs');
  const encoder = new Mp3Encoder(1, sampleRate, kbps);
  const parts: Uint8Array[] = [];
  let blocks = 0;
  for (let start = 0; start < pcm.length; start += FRAME_SAMPLES) {
    const chunk = encoder.encodeBuffer(pcm.subarray(start, start + FRAME_SAMPLES));
    if (chunk.length > 0) parts.push(bytesOf(chunk).slice());
    if (++blocks % BLOCKS_PER_SLICE === 0) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const tail = encoder.flush();
  if (tail.length > 0) parts.push(bytesOf(tail).slice());
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Whether `bytes` starts like an MP3 file: an ID3 tag or an MPEG audio frame sync. */
export function looksLikeMp3(bytes: Uint8Array): boolean {
  if (bytes.length < 3) return false;
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) return true; // "ID3"
  return bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0;
}

/** The file name of a voice note recorded at `now`. */
export function voiceNoteName(now: number = Date.now()): string {
  return `audio-${now}.mp3`;
}
