/**
 * Export to PDF, the IO side: every message of the ticket through `GET /messages/{uuid}` (cursor
 * pages until `hasMore` is false, with progress), the company's user names, then jsPDF (its own
 * chunk, loaded on first use) and the download of `ticket-<id>.pdf`.
 */
import type { TFunction } from 'i18next';
import { getMessages, type MessagesPageParam } from '../messages/api/messages';
import type { Message } from '../messages/types';
import { gapNoticeText } from '../messages/format';
import type { ExportInput, ExportLabels } from './document';

export interface ExportProgress {
  loaded: number;
  /** The ticket's message count when the server sent it. */
  total: number | null;
}

/** All the messages of a ticket, oldest first (pages come newest first, each oldest first). */
export async function loadAllMessages(uuid: string, onProgress: (progress: ExportProgress) => void, signal?: AbortSignal): Promise<Message[]> {
  const pages: Message[][] = [];
  let param: MessagesPageParam = { cursor: null, pageNumber: 1 };
  let total: number | null = null;
  const ids = new Set<number>();
  for (;;) {
    const page = await getMessages(uuid, param, signal);
    if (param.pageNumber === 1 && typeof page.count === 'number') total = page.count;
    pages.push(page.messages);
    for (const message of page.messages) ids.add(message.id);
    onProgress({ loaded: ids.size, total: total === null ? null : Math.max(total, ids.size) });
    if (!page.hasMore || (page.messages.length === 0 && !page.nextCursor)) break;
    param = { cursor: page.nextCursor ?? null, pageNumber: param.pageNumber + 1 };
  }
  const seen = new Set<number>();
  const out: Message[] = [];
  for (const message of pages.reverse().flat()) {
    if (seen.has(message.id)) continue;
    seen.add(message.id);
    out.push(message);
  }
  return out;
}

/** The document's words in the current language. */
export function exportLabels(t: TFunction, ticketId: number): ExportLabels {
  return {
    title: t('tickets.pdf.title', { id: ticketId }),
    contact: t('tickets.pdf.contact'),
    number: t('tickets.pdf.number'),
    ticket: t('tickets.pdf.ticket'),
    connection: t('tickets.pdf.connection'),
    queue: t('tickets.pdf.queue'),
    attendant: t('tickets.pdf.attendant'),
    exportedAt: t('tickets.pdf.exportedAt'),
    none: t('tickets.pdf.none'),
    attendantUnknown: t('tickets.pdf.attendantUnknown'),
    privateNote: t('messages.privateNote'),
    deletedOwn: t('messages.deletedOwn'),
    deletedByContact: t('messages.deletedByContact'),
    forwarded: t('messages.forwarded'),
    edited: t('messages.edited'),
    callLog: t('tickets.pdf.callLog'),
    gap: (body) => gapNoticeText(body, t),
    media: {
      image: t('tickets.pdf.media.image'),
      video: t('tickets.pdf.media.video'),
      audio: t('tickets.pdf.media.audio'),
      file: t('tickets.pdf.media.file'),
      location: t('tickets.pdf.media.location'),
      contact: t('tickets.pdf.media.contact'),
      reaction: t('tickets.pdf.media.reaction'),
    },
    page: (page, pages) => t('tickets.pdf.page', { page, pages }),
  };
}

export function pdfFileName(ticketId: number): string {
  return `ticket-${ticketId}.pdf`;
}

/** Builds the PDF (jsPDF and the builder load here, on first use) as a blob. */
export async function buildTicketPdf(input: ExportInput, labels: ExportLabels): Promise<Blob> {
  const [{ jsPDF }, { renderTicketPdf }] = await Promise.all([import('jspdf'), import('./document')]);
  return renderTicketPdf(jsPDF, input, labels).output('blob');
}

/** Hands a blob to the browser as a downloaded file. */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
