/**
 * Contact import (spec 1 §5, §9): `POST /contacts/upload` (multipart `file`) → preview and a
 * token, then `POST /contactsImport` `{token, mapping}` → the counts.
 */
import { z } from 'zod/mini';
import { api } from '../../../lib/api';
import { hasExtension } from '../../../lib/files';

export const ACCEPTED_EXTENSIONS = ['xls', 'xlsx', 'csv', 'txt'] as const;
export const IMPORT_FIELDS = ['name', 'number', 'email', 'tags'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];
export const REQUIRED_IMPORT_FIELDS: readonly ImportField[] = ['name', 'number'];

/** Column header → the field it feeds ('' for none). */
export type ColumnMapping = Record<string, ImportField | ''>;

export function isAcceptedFile(fileName: string): boolean {
  return hasExtension(fileName, ACCEPTED_EXTENSIONS);
}

const cell = z.pipe(z.union([z.string(), z.number(), z.boolean(), z.null()]), z.transform((v) => (v === null ? '' : String(v))));

export const uploadSchema = z.object({
  columns: z.array(z.string()),
  rows: z.array(z.union([z.array(cell), z.record(z.string(), cell)])),
  total: z.nullish(z.number()),
  token: z.string(),
});
export type UploadResult = z.infer<typeof uploadSchema>;

/** A preview row as cells in column order. */
export function rowCells(row: UploadResult['rows'][number], columns: readonly string[]): string[] {
  return Array.isArray(row) ? columns.map((_, i) => row[i] ?? '') : columns.map((c) => row[c] ?? '');
}

export const importResultSchema = z.object({
  imported: z.number(),
  ignored: z.number(),
  failed: z.number(),
  errors: z.nullish(z.array(z.object({ row: z.number(), error: z.string() }))),
});
export type ImportResult = z.infer<typeof importResultSchema>;

export function uploadContactsFile(file: File): Promise<UploadResult> {
  const form = new FormData();
  form.append('file', file);
  return api.post('/contacts/upload', form, { schema: uploadSchema });
}

const GUESSES: Record<ImportField, string[]> = {
  name: ['nome', 'name', 'contato', 'contact'],
  number: ['numero', 'number', 'telefone', 'phone', 'celular', 'whatsapp'],
  email: ['email', 'e-mail', 'mail'],
  tags: ['tags', 'tag', 'etiquetas'],
};

function normalize(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();
}

/** A first mapping from the header names; each field goes to at most one column. */
export function guessMapping(columns: readonly string[]): ColumnMapping {
  const mapping: ColumnMapping = Object.fromEntries(columns.map((c) => [c, '']));
  for (const field of IMPORT_FIELDS) {
    const column = columns.find((c) => mapping[c] === '' && GUESSES[field].includes(normalize(c)));
    if (column) mapping[column] = field;
  }
  return mapping;
}

/** Fields a column may still choose: its own, and those no other column took. */
export function availableFields(mapping: ColumnMapping, column: string): ImportField[] {
  const taken = new Set(Object.entries(mapping).filter(([c, f]) => c !== column && f !== '').map(([, f]) => f));
  return IMPORT_FIELDS.filter((field) => !taken.has(field));
}

/**
 * Sets a column's field. Refused (mapping returned unchanged) when another column already feeds
 * that field: a column can't map to a field already chosen.
 */
export function assignField(mapping: ColumnMapping, column: string, field: ImportField | ''): ColumnMapping {
  if (field !== '' && !availableFields(mapping, column).includes(field)) return mapping;
  return { ...mapping, [column]: field };
}

/** Required fields not mapped yet. */
export function missingFields(mapping: ColumnMapping): ImportField[] {
  const chosen = new Set(Object.values(mapping));
  return REQUIRED_IMPORT_FIELDS.filter((field) => !chosen.has(field));
}

/** The `mapping` of `POST /contactsImport`: field → column header. */
export function mappingBody(mapping: ColumnMapping): { name: string; number: string; email?: string; tags?: string } {
  const columnOf = (field: ImportField) => Object.entries(mapping).find(([, f]) => f === field)?.[0];
  const email = columnOf('email');
  const tags = columnOf('tags');
  return { name: columnOf('name') ?? '', number: columnOf('number') ?? '', ...(email ? { email } : {}), ...(tags ? { tags } : {}) };
}

export function importContacts(token: string, mapping: ColumnMapping): Promise<ImportResult> {
  return api.post('/contactsImport', { token, mapping: mappingBody(mapping) }, { schema: importResultSchema });
}
