/**
 * Files picked in the browser: a name's extension and the one table from extension to MIME type
 * (what the uploads of the app accept). The server checks every upload's content again.
 */

/** Extension → MIME type of the files the app uploads. */
export const MIME_TYPES = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  mp4: 'video/mp4',
  pdf: 'application/pdf',
  csv: 'text/csv',
  txt: 'text/plain',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const satisfies Record<string, string>;
export type KnownExtension = keyof typeof MIME_TYPES;

/** The lower-cased text after the name's last dot; '' when there is none (`notes`, `.env`). */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** Whether the name ends with one of `extensions` (lower case, without the dot). */
export function hasExtension(fileName: string, extensions: readonly string[]): boolean {
  const extension = extensionOf(fileName);
  return extension !== '' && extensions.includes(extension);
}

/** The file's declared type, or the one its extension names when none is declared. */
export function mimeTypeOf(file: Pick<File, 'name' | 'type'>): string | undefined {
  if (file.type) return file.type;
  const extension = extensionOf(file.name);
  return isKnown(extension) ? MIME_TYPES[extension] : undefined;
}

function isKnown(extension: string): extension is KnownExtension {
  return extension in MIME_TYPES;
}

/** For `<input type="file" accept>`: each extension with its dot, then the MIME types of those the table knows. */
export function acceptOf(extensions: readonly string[]): string {
  const types = [...new Set(extensions.filter(isKnown).map((extension) => MIME_TYPES[extension]))];
  return [...extensions.map((extension) => `.${extension}`), ...types].join(',');
}
