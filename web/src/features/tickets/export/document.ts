/**
 * The ticket's PDF export (spec 1 "Ticket view" / "Dialogs"): what the document says and where
 * each line goes. Pure: `exportBlocks` turns the ticket and its messages into styled text blocks,
 * `layoutPages` wraps them into pages with a measuring function, and `renderTicketPdf` draws the
 * pages with the jsPDF class it is given (loaded lazily by the caller, so the main bundle does not
 * carry it). The header keeps the contact's number as the API returned it (LGPD masking kept).
 */
import type { jsPDF } from 'jspdf';
import { dayOf, timeOf } from '../../messages/format';
import type { Message } from '../../messages/types';
import type { Ticket } from '../types';

/** The words of the document, in the user's language (see `exportLabels`). */
export interface ExportLabels {
  title: string;
  contact: string;
  number: string;
  ticket: string;
  connection: string;
  queue: string;
  attendant: string;
  exportedAt: string;
  none: string;
  /** The author of an attendant's message whose user is unknown. */
  attendantUnknown: string;
  privateNote: string;
  deletedOwn: string;
  deletedByContact: string;
  forwarded: string;
  edited: string;
  callLog: string;
  /** `[image]`, `[audio]`... by media type; other types use `file`. */
  media: Record<'image' | 'video' | 'audio' | 'file' | 'location' | 'contact' | 'reaction', string>;
  page: (page: number, pages: number) => string;
}

export type BlockStyle = 'title' | 'meta' | 'author' | 'body' | 'notice';

export interface Block {
  style: BlockStyle;
  text: string;
  /** Starts a new message: a gap before it, and it stays on the page of its first body line. */
  keepWithNext?: boolean;
}

export interface ExportInput {
  ticket: Pick<Ticket, 'id' | 'contact' | 'whatsapp' | 'queue' | 'user'>;
  /** Oldest first. */
  messages: Message[];
  /** Names of the company's users, for the authors of attendants' messages. */
  users: ReadonlyMap<number, string>;
  exportedAt: Date;
}

const WIN_ANSI_EXTRAS = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
const REPLACEMENTS: Record<string, string> = { ı: 'i', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', '\t': '    ', '\u00a0': ' ', '−': '-', '′': "'", '″': '"' };

function winAnsi(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.includes(char);
}

/**
 * The text as the PDF's standard font can draw it (WinAnsi): accented Latin letters stay, other
 * letters lose their marks (ş → s, ğ → g), anything else (emoji, other scripts) becomes "?".
 */
export function pdfSafe(text: string): string {
  let out = '';
  for (const char of text.normalize('NFC')) {
    if (char === '\n') out += char;
    else if (winAnsi(char)) out += char;
    else if (char in REPLACEMENTS) out += REPLACEMENTS[char];
    else if (/\p{Cc}|\p{Cf}|\p{M}/u.test(char)) continue;
    else {
      const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
      out += bare.length > 0 && [...bare].every(winAnsi) ? bare : '?';
    }
  }
  return out;
}

/** dd/MM/yyyy HH:mm, local time. */
function stamp(value: string | Date): string {
  const iso = typeof value === 'string' ? value : value.toISOString();
  return `${dayOf(iso)} ${timeOf(iso)}`;
}

function mediaTag(message: Message, labels: ExportLabels): string | null {
  switch (message.mediaType) {
    case 'image':
      return labels.media.image;
    case 'video':
      return labels.media.video;
    case 'audio':
      return labels.media.audio;
    case 'application':
    case 'document':
      return labels.media.file;
    case 'locationMessage':
      return labels.media.location;
    case 'contactMessage':
      return labels.media.contact;
    case 'reactionMessage':
      return labels.media.reaction;
    default:
      return message.mediaUrl ? labels.media.file : null;
  }
}

/** Who wrote a message: the contact (or the group member), the attendant, or a private note. */
export function authorOf(message: Message, input: Pick<ExportInput, 'ticket' | 'users'>, labels: ExportLabels): string {
  if (!message.fromMe) return message.participant || input.ticket.contact.name;
  const name = (message.userId != null ? input.users.get(message.userId) : undefined) ?? labels.attendantUnknown;
  return message.isPrivate ? `${labels.privateNote} - ${name}` : name;
}

/** What a message's body reads in the document. */
export function messageText(message: Message, labels: ExportLabels): string {
  if (message.isDeleted) return message.fromMe ? labels.deletedOwn : labels.deletedByContact;
  if (message.mediaType === 'call_log') return labels.callLog;
  const tag = mediaTag(message, labels);
  if (!tag) return message.body;
  const name = message.mediaName?.trim();
  const head = name ? `${tag} ${name}` : tag;
  const caption = message.body.trim();
  return caption && caption !== name ? `${head}\n${caption}` : head;
}

/** The document as styled blocks: the header, then every message, oldest first. */
export function exportBlocks(input: ExportInput, labels: ExportLabels): Block[] {
  const { ticket } = input;
  const meta = (label: string, value: string | null | undefined): Block => ({ style: 'meta', text: `${label}: ${value || labels.none}` });
  const blocks: Block[] = [
    { style: 'title', text: labels.title },
    meta(labels.contact, ticket.contact.name),
    meta(labels.number, ticket.contact.number),
    meta(labels.ticket, `#${ticket.id}`),
    meta(labels.connection, ticket.whatsapp?.name),
    meta(labels.queue, ticket.queue?.name),
    meta(labels.attendant, ticket.user?.name),
    meta(labels.exportedAt, stamp(input.exportedAt)),
  ];
  for (const message of input.messages) {
    blocks.push({ style: 'author', text: `${stamp(message.createdAt)}  ${authorOf(message, input, labels)}`, keepWithNext: true });
    if (message.isForwarded && !message.isDeleted) blocks.push({ style: 'notice', text: labels.forwarded });
    if (message.quotedMsg && !message.isDeleted) {
      const quoted = message.quotedMsg.isDeleted ? labels.deletedByContact : message.quotedMsg.body;
      blocks.push({ style: 'notice', text: `> ${quoted.replace(/\n/g, ' ')}` });
    }
    blocks.push({ style: message.isDeleted ? 'notice' : 'body', text: messageText(message, labels) });
    if (message.isEdited && !message.isDeleted) blocks.push({ style: 'notice', text: labels.edited });
  }
  return blocks;
}

export interface PageGeometry {
  /** Page height and the top / bottom margins, in the document's unit (mm). */
  height: number;
  top: number;
  bottom: number;
  /** Line height per style. */
  lineHeight: Record<BlockStyle, number>;
  /** Space before a message. */
  gap: number;
}

export interface PlacedLine {
  style: BlockStyle;
  text: string;
  /** Baseline from the top of the page. */
  y: number;
}

export const GEOMETRY: PageGeometry = {
  height: 297,
  top: 20,
  bottom: 18,
  lineHeight: { title: 8, meta: 5.5, author: 5, body: 5, notice: 5 },
  gap: 3,
};

/**
 * Wraps the blocks (`wrap` splits one paragraph into lines that fit the width of its style) and
 * puts the lines on pages. A message's author line never ends a page alone.
 */
export function layoutPages(blocks: Block[], wrap: (text: string, style: BlockStyle) => string[], geometry: PageGeometry = GEOMETRY): PlacedLine[][] {
  const limit = geometry.height - geometry.bottom;
  const pages: PlacedLine[][] = [[]];
  let y = geometry.top;
  const newPage = () => {
    pages.push([]);
    y = geometry.top;
  };
  const linesOf = (block: Block) =>
    block.text
      .split('\n')
      .flatMap((paragraph) => (paragraph.trim() === '' ? [''] : wrap(paragraph, block.style)))
      .map((text) => ({ style: block.style, text }));

  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    const lines = linesOf(block);
    if (block.keepWithNext) {
      const previous = pages[pages.length - 1].at(-1);
      // A message starts after a gap; the first one also clears the header's rule.
      if (previous) y += previous.style === 'meta' ? geometry.gap * 2 : geometry.gap;
      const next = blocks[i + 1];
      const following = next ? geometry.lineHeight[next.style] : 0;
      const needed = lines.length * geometry.lineHeight[block.style] + following;
      if (y + needed > limit && pages[pages.length - 1].length > 0) newPage();
    }
    for (const line of lines) {
      const height = geometry.lineHeight[line.style];
      if (y + height > limit && pages[pages.length - 1].length > 0) newPage();
      y += height;
      pages[pages.length - 1].push({ ...line, y });
    }
  }
  return pages;
}

type JsPdfClass = new (options: { unit: 'mm'; format: 'a4'; compress?: boolean }) => jsPDF;

const MARGIN_X = 15;
const FONT: Record<BlockStyle, { size: number; weight: 'normal' | 'bold' | 'italic'; gray: number }> = {
  title: { size: 15, weight: 'bold', gray: 0 },
  meta: { size: 10, weight: 'normal', gray: 40 },
  author: { size: 9, weight: 'bold', gray: 60 },
  body: { size: 10, weight: 'normal', gray: 0 },
  notice: { size: 9, weight: 'italic', gray: 90 },
};

/** Builds the PDF of a ticket. `compress` false keeps the text readable in the output (tests). */
export function renderTicketPdf(JsPdf: JsPdfClass, input: ExportInput, labels: ExportLabels, options: { compress?: boolean } = {}): jsPDF {
  const doc = new JsPdf({ unit: 'mm', format: 'a4', compress: options.compress ?? true });
  const width = doc.internal.pageSize.getWidth() - MARGIN_X * 2;
  const applyFont = (style: BlockStyle) => {
    const font = FONT[style];
    doc.setFont('helvetica', font.weight);
    doc.setFontSize(font.size);
    doc.setTextColor(font.gray);
  };
  const wrap = (text: string, style: BlockStyle): string[] => {
    applyFont(style);
    return doc.splitTextToSize(pdfSafe(text), width) as string[];
  };
  const geometry = { ...GEOMETRY, height: doc.internal.pageSize.getHeight() };
  const pages = layoutPages(exportBlocks(input, labels), wrap, geometry);
  const footer = `${pdfSafe(labels.ticket)} #${input.ticket.id}`;
  pages.forEach((lines, index) => {
    if (index > 0) doc.addPage();
    for (const line of lines) {
      if (line.text === '') continue;
      applyFont(line.style);
      doc.text(line.text, MARGIN_X, line.y);
    }
    if (index === 0) {
      const last = lines.filter((l) => l.style === 'meta').at(-1);
      if (last) {
        doc.setDrawColor(180);
        doc.line(MARGIN_X, last.y + geometry.gap, MARGIN_X + width, last.y + geometry.gap);
      }
    }
    applyFont('notice');
    doc.text(`${footer} - ${pdfSafe(labels.page(index + 1, pages.length))}`, MARGIN_X, geometry.height - 8);
  });
  return doc;
}
