/**
 * The ticket's PDF export (spec 1 "Ticket view" / "Dialogs"): what the document says and where
 * each line goes. Pure: `exportBlocks` turns the ticket and its messages into styled text blocks,
 * `layoutPages` wraps them into pages with a measuring function, and `renderTicketPdf` draws the
 * pages with the jsPDF class it is given (loaded lazily by the caller, so the main bundle does not
 * carry it). The header keeps the contact's number as the API returned it (LGPD masking kept).
 * Message bodies keep their WhatsApp formatting without the markers: bold, italic and bold
 * italic in Helvetica's faces, monospace in Courier, strikethrough as a drawn line.
 */
import type { jsPDF } from 'jspdf';
import { dayOf, timeOf } from '../messages/format';
import type { Message } from '../messages/types';
import { plainText, styledRuns, type StyledRun } from '../../../lib/whatsapp/format';
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
  /** A gap notice (`mediaType` `gap`) in words, from its body (the interval). */
  gap: (body: string) => string;
  /** `[image]`, `[audio]`... by media type; other types use `file`. */
  media: Record<'image' | 'video' | 'audio' | 'file' | 'location' | 'contact' | 'reaction', string>;
  page: (page: number, pages: number) => string;
}

export type BlockStyle = 'title' | 'meta' | 'author' | 'body' | 'notice';

export interface Block {
  style: BlockStyle;
  /** What the block reads (formatting markers removed). */
  text: string;
  /** The same text with its formatting (message bodies); plain when absent. */
  runs?: StyledRun[];
  /** Starts a new message: a gap before it, and it stays on the page of its first body line. */
  keepWithNext?: boolean;
}

/** A run of `text` in the block's own font. */
export function plainRun(text: string): StyledRun {
  return { text, bold: false, italic: false, strike: false, mono: false };
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

/** Who wrote a message: the contact (or the group member), the attendant, or a private note; no one for a gap notice. */
export function authorOf(message: Message, input: Pick<ExportInput, 'ticket' | 'users'>, labels: ExportLabels): string {
  if (message.mediaType === 'gap') return '';
  if (!message.fromMe) return message.participant || input.ticket.contact.name;
  const name = (message.userId != null ? input.users.get(message.userId) : undefined) ?? labels.attendantUnknown;
  return message.isPrivate ? `${labels.privateNote} - ${name}` : name;
}

/** What a message's body reads in the document, formatted as on the phone (markers removed). */
export function messageRuns(message: Message, labels: ExportLabels): StyledRun[] {
  if (message.isDeleted) return [plainRun(message.fromMe ? labels.deletedOwn : labels.deletedByContact)];
  if (message.mediaType === 'call_log') return [plainRun(labels.callLog)];
  if (message.mediaType === 'gap') return [plainRun(labels.gap(message.body))];
  const tag = mediaTag(message, labels);
  if (!tag) return styledRuns(message.body);
  const name = message.mediaName?.trim();
  const head = name ? `${tag} ${name}` : tag;
  const caption = message.body.trim();
  return caption && caption !== name ? [plainRun(`${head}\n`), ...styledRuns(caption)] : [plainRun(head)];
}

/** What a message's body reads in the document, as plain text. */
export function messageText(message: Message, labels: ExportLabels): string {
  return messageRuns(message, labels)
    .map((run) => run.text)
    .join('');
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
    blocks.push({ style: 'author', text: `${stamp(message.createdAt)}  ${authorOf(message, input, labels)}`.trimEnd(), keepWithNext: true });
    if (message.isForwarded && !message.isDeleted) blocks.push({ style: 'notice', text: labels.forwarded });
    if (message.quotedMsg && !message.isDeleted) {
      const quoted = message.quotedMsg.isDeleted ? labels.deletedByContact : plainText(message.quotedMsg.body);
      blocks.push({ style: 'notice', text: `> ${quoted.replace(/\n/g, ' ')}` });
    }
    const runs = messageRuns(message, labels);
    blocks.push({ style: message.isDeleted ? 'notice' : 'body', text: runs.map((run) => run.text).join(''), runs });
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
  /** The line's text (its runs joined). */
  text: string;
  runs: StyledRun[];
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

/** Splits runs at their line breaks: one list of runs per paragraph. */
export function paragraphs(runs: StyledRun[]): StyledRun[][] {
  const out: StyledRun[][] = [[]];
  for (const run of runs) {
    run.text.split('\n').forEach((part, i) => {
      if (i > 0) out.push([]);
      if (part) out[out.length - 1].push({ ...run, text: part });
    });
  }
  return out;
}

/**
 * Wraps the blocks (`wrap` splits one paragraph's runs into lines that fit the width of its
 * style) and puts the lines on pages. A message's author line never ends a page alone.
 */
export function layoutPages(blocks: Block[], wrap: (runs: StyledRun[], style: BlockStyle) => StyledRun[][], geometry: PageGeometry = GEOMETRY): PlacedLine[][] {
  const limit = geometry.height - geometry.bottom;
  const pages: PlacedLine[][] = [[]];
  let y = geometry.top;
  const newPage = () => {
    pages.push([]);
    y = geometry.top;
  };
  const linesOf = (block: Block) =>
    paragraphs(block.runs ?? [plainRun(block.text)])
      .flatMap((paragraph) => (paragraph.every((run) => run.text.trim() === '') ? [[]] : wrap(paragraph, block.style)))
      .map((runs) => ({ style: block.style, runs, text: runs.map((run) => run.text).join('') }));

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
/** Millimetres per typographic point. */
const MM_PER_PT = 25.4 / 72;
const FONT: Record<BlockStyle, { size: number; weight: 'normal' | 'bold' | 'italic'; gray: number }> = {
  title: { size: 15, weight: 'bold', gray: 0 },
  meta: { size: 10, weight: 'normal', gray: 40 },
  author: { size: 9, weight: 'bold', gray: 60 },
  body: { size: 10, weight: 'normal', gray: 0 },
  notice: { size: 9, weight: 'italic', gray: 90 },
};

/** The jsPDF font (family and face) of a run in a block style. */
export function fontOf(style: BlockStyle, run: StyledRun): [family: 'helvetica' | 'courier', face: 'normal' | 'bold' | 'italic' | 'bolditalic'] {
  const base = FONT[style].weight;
  const bold = run.bold || base === 'bold';
  const italic = run.italic || base === 'italic';
  return [run.mono ? 'courier' : 'helvetica', bold && italic ? 'bolditalic' : bold ? 'bold' : italic ? 'italic' : 'normal'];
}

const sameStyle = (a: StyledRun, b: StyledRun) => a.bold === b.bold && a.italic === b.italic && a.strike === b.strike && a.mono === b.mono;

/**
 * Greedy word wrap of styled runs: `measure` gives a piece's width in its font. Spaces at a break
 * are dropped; a word wider than the line is cut between characters.
 */
export function wrapRuns(runs: StyledRun[], width: number, measure: (run: StyledRun) => number): StyledRun[][] {
  const lines: StyledRun[][] = [];
  let line: StyledRun[] = [];
  let x = 0;
  const push = (piece: StyledRun, w: number) => {
    const last = line.at(-1);
    if (last && sameStyle(last, piece)) line[line.length - 1] = { ...last, text: last.text + piece.text };
    else line.push(piece);
    x += w;
  };
  const breakLine = () => {
    const last = line.at(-1);
    if (last) {
      const trimmed = last.text.replace(/\s+$/, '');
      if (trimmed) line[line.length - 1] = { ...last, text: trimmed };
      else line.pop();
    }
    lines.push(line);
    line = [];
    x = 0;
  };
  const pieces = runs.flatMap((run) =>
    run.text
      .split(/(\s+)/)
      .filter(Boolean)
      .map((text) => ({ ...run, text })),
  );
  for (const piece of pieces) {
    const w = measure(piece);
    const blank = piece.text.trim() === '';
    if (x + w <= width) {
      if (!(blank && line.length === 0 && lines.length > 0)) push(piece, w);
      continue;
    }
    if (blank) {
      if (line.length > 0) breakLine();
      continue;
    }
    if (line.length > 0) breakLine();
    if (w <= width) {
      push(piece, w);
      continue;
    }
    for (const char of Array.from(piece.text)) {
      const part = { ...piece, text: char };
      const cw = measure(part);
      if (x + cw > width && line.length > 0) breakLine();
      push(part, cw);
    }
  }
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines;
}

/** Builds the PDF of a ticket. `compress` false keeps the text readable in the output (tests). */
export function renderTicketPdf(JsPdf: JsPdfClass, input: ExportInput, labels: ExportLabels, options: { compress?: boolean } = {}): jsPDF {
  const doc = new JsPdf({ unit: 'mm', format: 'a4', compress: options.compress ?? true });
  const width = doc.internal.pageSize.getWidth() - MARGIN_X * 2;
  const applyFont = (style: BlockStyle, run: StyledRun = plainRun('')) => {
    const font = FONT[style];
    doc.setFont(...fontOf(style, run));
    doc.setFontSize(font.size);
    doc.setTextColor(font.gray);
  };
  const wrap = (runs: StyledRun[], style: BlockStyle): StyledRun[][] =>
    wrapRuns(
      runs.map((run) => ({ ...run, text: pdfSafe(run.text) })),
      width,
      (run) => {
        applyFont(style, run);
        return doc.getTextWidth(run.text);
      },
    );
  const geometry = { ...GEOMETRY, height: doc.internal.pageSize.getHeight() };
  const pages = layoutPages(exportBlocks(input, labels), wrap, geometry);
  const footer = `${pdfSafe(labels.ticket)} #${input.ticket.id}`;
  pages.forEach((lines, index) => {
    if (index > 0) doc.addPage();
    for (const line of lines) {
      let x = MARGIN_X;
      for (const run of line.runs) {
        if (run.text === '') continue;
        applyFont(line.style, run);
        doc.text(run.text, x, line.y);
        const w = doc.getTextWidth(run.text);
        if (run.strike) {
          const font = FONT[line.style];
          const rise = font.size * MM_PER_PT * 0.3;
          doc.setDrawColor(font.gray);
          doc.setLineWidth(0.2);
          doc.line(x, line.y - rise, x + w, line.y - rise);
        }
        x += w;
      }
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
