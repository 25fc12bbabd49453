/**
 * Voice note recording (spec 1 "Ticket view", §4 "Audio recorder"): the microphone through
 * getUserMedia + MediaRecorder, then the recording decoded with Web Audio and encoded to MP3
 * (./mp3.ts), sent as `audio-<ts>.mp3` (audio/mpeg).
 */
import { encodeMp3, floatTo16BitPcm, mixDown, voiceNoteName } from './mp3';

/** The recorder's states: idle → recording → sending | cancelled (→ idle again). */
export type RecorderStatus = 'idle' | 'recording' | 'sending' | 'cancelled';
export type RecorderEvent = 'start' | 'cancel' | 'send' | 'done';

/** The state machine; an event that does not apply leaves the state as it is. */
export function nextRecorderStatus(status: RecorderStatus, event: RecorderEvent): RecorderStatus {
  switch (event) {
    case 'start':
      return status === 'idle' || status === 'cancelled' ? 'recording' : status;
    case 'cancel':
      return status === 'recording' ? 'cancelled' : status;
    case 'send':
      return status === 'recording' ? 'sending' : status;
    case 'done':
      return status === 'sending' ? 'idle' : status;
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The count-up timer: mm:ss from 00:00 (minutes keep counting past 59). */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${pad(Math.floor(seconds / 60))}:${pad(seconds % 60)}`;
}

export interface Recording {
  /** Stops and returns what was recorded (in the browser's own container, e.g. webm/opus). */
  stop: () => Promise<Blob>;
  /** Stops and drops the recording. */
  cancel: () => void;
}

/** Opens the microphone and starts recording. Rejects when the permission is refused. */
export async function startRecording(devices: MediaDevices = navigator.mediaDevices): Promise<Recording> {
  const stream = await devices.getUserMedia({ audio: true });
  const release = () => stream.getTracks().forEach((track) => track.stop());
  let recorder: MediaRecorder;
  try {
    recorder = new MediaRecorder(stream);
  } catch (error) {
    release();
    throw error;
  }
  const chunks: Blob[] = [];
  recorder.addEventListener('dataavailable', (event: BlobEvent) => {
    if (event.data.size > 0) chunks.push(event.data);
  });
  recorder.start();
  return {
    stop: () =>
      new Promise<Blob>((resolve, reject) => {
        recorder.addEventListener('stop', () => {
          release();
          resolve(new Blob(chunks, { type: recorder.mimeType || chunks[0]?.type || 'audio/webm' }));
        });
        recorder.addEventListener('error', (event) => {
          release();
          reject((event as ErrorEvent).error ?? new Error('recording failed'));
        });
        if (recorder.state === 'inactive') {
          release();
          resolve(new Blob(chunks));
        } else {
          recorder.stop();
        }
      }),
    cancel: () => {
      if (recorder.state !== 'inactive') recorder.stop();
      release();
      chunks.length = 0;
    },
  };
}

/** Decodes a recording with Web Audio and encodes it as an MP3 voice note file. */
export async function recordingToMp3(recording: Blob, now: number = Date.now()): Promise<File> {
  const context = new AudioContext();
  try {
    const buffer = await context.decodeAudioData(await recording.arrayBuffer());
    const channels = Array.from({ length: buffer.numberOfChannels }, (_, i) => buffer.getChannelData(i));
    const mp3 = await encodeMp3(floatTo16BitPcm(mixDown(channels)), buffer.sampleRate);
    return new File([mp3], voiceNoteName(now), { type: 'audio/mpeg' });
  } finally {
    void context.close().catch(() => undefined);
  }
}
