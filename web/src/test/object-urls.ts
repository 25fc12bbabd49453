/** jsdom has no URL.createObjectURL / revokeObjectURL: numbered fakes that record their calls. */
import { vi } from 'vitest';

export function stubObjectUrls() {
  const created: string[] = [];
  const createObjectURL = vi.fn((_blob: Blob) => {
    const url = `blob:http://localhost/${created.length + 1}`;
    created.push(url);
    return url;
  });
  const revokeObjectURL = vi.fn((_url: string) => undefined);
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, writable: true, value: createObjectURL });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, writable: true, value: revokeObjectURL });
  return {
    created,
    createObjectURL,
    revokeObjectURL,
    restore: () => {
      Reflect.deleteProperty(URL, 'createObjectURL');
      Reflect.deleteProperty(URL, 'revokeObjectURL');
    },
  };
}

/** The 8-byte PNG signature: enough for the browser-side checks and the fake image responses. */
export const PNG_BYTES: Uint8Array<ArrayBuffer> = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An image response built on Node's Response (jsdom's Blob is not a body it can read). */
export function imageResponse(bytes: Uint8Array<ArrayBuffer> = PNG_BYTES, type = 'image/png'): Response {
  return new Response(bytes, { status: 200, headers: { 'Content-Type': type } });
}
