/**
 * The notification sound (spec 1 "Layout and top bar"): a short two-note chime synthesised here
 * as a WAV data URL (no audio file shipped), played at the volume the top bar's slider keeps in
 * localStorage `volume` (0 to 1).
 */

export const VOLUME_KEY = 'volume';

/** The stored notification volume, 1 when none is stored. */
export function readVolume(): number {
  try {
    const raw = localStorage.getItem(VOLUME_KEY);
    const value = Number(raw);
    return raw !== null && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
  } catch {
    return 1;
  }
}

export function storeVolume(volume: number): void {
  try {
    localStorage.setItem(VOLUME_KEY, String(volume));
  } catch {
    // storage unavailable
  }
}

const SAMPLE_RATE = 22_050;

/** The chime: two decaying sine notes (E6 then A6 over its tail), 16-bit mono PCM. */
export function chimeSamples(sampleRate: number = SAMPLE_RATE): Int16Array {
  const notes = [
    { hz: 1318.5, start: 0, length: 0.18 },
    { hz: 1760, start: 0.11, length: 0.3 },
  ];
  const total = Math.ceil(sampleRate * Math.max(...notes.map((n) => n.start + n.length)));
  const mix = new Float32Array(total);
  for (const note of notes) {
    const from = Math.floor(note.start * sampleRate);
    const count = Math.floor(note.length * sampleRate);
    for (let i = 0; i < count && from + i < total; i++) {
      const t = i / sampleRate;
      const attack = Math.min(1, i / (0.005 * sampleRate));
      const decay = Math.exp((-5 * t) / note.length);
      mix[from + i] += 0.45 * attack * decay * Math.sin(2 * Math.PI * note.hz * t);
    }
  }
  return Int16Array.from(mix, (v) => Math.round(Math.max(-1, Math.min(1, v)) * 0x7fff));
}

/** A RIFF/WAVE file (PCM, 16-bit, mono) around `samples`. */
export function wavFile(samples: Int16Array, sampleRate: number): Uint8Array {
  const dataBytes = samples.length * 2;
  const buffer = new ArrayBuffer(44 + dataBytes);
  const view = new DataView(buffer);
  const text = (offset: number, value: string) => {
    for (let i = 0; i < value.length; i++) view.setUint8(offset + i, value.charCodeAt(i));
  };
  text(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  text(36, 'data');
  view.setUint32(40, dataBytes, true);
  samples.forEach((sample, i) => view.setInt16(44 + i * 2, sample, true));
  return new Uint8Array(buffer);
}

let dataUrl: string | null = null;

/** The chime as a `data:audio/wav;base64,...` URL (built once). */
export function notificationSoundUrl(): string {
  if (dataUrl) return dataUrl;
  const bytes = wavFile(chimeSamples(), SAMPLE_RATE);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  dataUrl = `data:audio/wav;base64,${btoa(binary)}`;
  return dataUrl;
}

let player: HTMLAudioElement | null = null;

/** Plays the chime at `volume` (the stored one by default); silent at 0 or when the browser refuses. */
export function playNotificationSound(volume: number = readVolume()): void {
  if (volume <= 0 || typeof Audio === 'undefined') return;
  player ??= new Audio(notificationSoundUrl());
  player.volume = Math.min(1, volume);
  try {
    player.currentTime = 0;
    const played = player.play();
    // Browsers refuse sound before the first user gesture: nothing to do about it.
    if (played && typeof played.catch === 'function') played.catch(() => undefined);
  } catch {
    // no audio output
  }
}
