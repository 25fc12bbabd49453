/**
 * WhatsApp's text formatting, parsed as the phone parses it: `*bold*`, `_italic_`, `~strike~`,
 * ```` ```monospace``` ````, `` `inline code` ``, `> quote` lines and `- ` / `* ` / `1. ` list lines.
 * Pure, so the message bubbles, the one-line previews and the PDF export share one reading.
 *
 * Rules (the phone's):
 * - an emphasis marker opens at the start of a line or after a character that is not a letter or
 *   digit, with no space right after it; it closes before the end of the line or a character
 *   that is not a letter or digit, with no space right before it, on the same line, around
 *   something: `2*3*4` and `snake_case_name` stay as typed, `*_both_*` nests;
 * - nothing is formatted inside monospace or inline code; monospace may span lines, inline code
 *   may not;
 * - links (`https://…`, `http://…`, `www.…`) are taken whole, so an underscore or a tilde in a
 *   link formats nothing, and stay links;
 * - a marker that does not close is text.
 */

export type Emphasis = 'bold' | 'italic' | 'strike';

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: Emphasis; children: Inline[] }
  /** ```` ```monospace``` ```` (may hold line breaks). */
  | { kind: 'mono'; text: string }
  /** `` `inline code` ``. */
  | { kind: 'code'; text: string }
  | { kind: 'link'; text: string; href: string };

export type Line =
  | { kind: 'text'; content: Inline[] }
  | { kind: 'quote'; content: Inline[] }
  | { kind: 'bullet'; content: Inline[] }
  /** `marker` is the number with its dot, as typed ("2."). */
  | { kind: 'numbered'; marker: string; content: Inline[] };

type Atom = Extract<Inline, { kind: 'mono' | 'code' | 'link' }>;
/** One character of the text (a whole code point) or a piece taken whole. */
type Unit = string | Atom;

const MARKERS: Record<string, Emphasis> = { '*': 'bold', _: 'italic', '~': 'strike' };
const WORD = /^[\p{L}\p{N}\p{M}]/u;
const SPACE = /^\s/u;
const LINK = /(?:https?:\/\/|www\.)[^\s<>]+/iy;
/** What a link does not end with: sentence punctuation and the emphasis markers around it. */
const LINK_TAIL = /[.,;:!?'"*_~]$/;

const isWord = (unit: Unit | undefined) => typeof unit === 'string' && WORD.test(unit);
const isSpace = (unit: Unit | undefined) => typeof unit === 'string' && SPACE.test(unit);

/** The link at UTF-16 offset `start` of `text`, trimmed of what ends a sentence, or null. */
function linkAt(text: string, start: number): string | null {
  LINK.lastIndex = start;
  const match = LINK.exec(text);
  if (!match) return null;
  let link = match[0];
  for (;;) {
    if (LINK_TAIL.test(link)) link = link.slice(0, -1);
    else if (link.endsWith(')') && (link.match(/\(/g)?.length ?? 0) < (link.match(/\)/g)?.length ?? 0)) link = link.slice(0, -1);
    else break;
  }
  const host = link.replace(/^(?:https?:\/\/|www\.)/i, '');
  return /[\p{L}\p{N}]/u.test(host) ? link : null;
}

/** The text as units: monospace, inline code and links taken whole, other characters one by one. */
function tokenize(text: string): Unit[] {
  const chars = Array.from(text);
  // UTF-16 offset of each character, for the link expression.
  const offsets: number[] = [];
  let offset = 0;
  for (const char of chars) {
    offsets.push(offset);
    offset += char.length;
  }
  const units: Unit[] = [];
  const opensAt = (i: number) => !isWord(chars[i - 1]);
  const closesAt = (i: number) => !isWord(chars[i]);
  let i = 0;
  while (i < chars.length) {
    const char = chars[i];
    if (char === '`' && opensAt(i)) {
      if (chars[i + 1] === '`' && chars[i + 2] === '`') {
        const end = findMonoEnd(chars, i + 3);
        if (end !== null && closesAt(end + 3)) {
          units.push({ kind: 'mono', text: chars.slice(i + 3, end).join('') });
          i = end + 3;
          continue;
        }
      } else {
        const end = findCodeEnd(chars, i + 1);
        if (end !== null) {
          units.push({ kind: 'code', text: chars.slice(i + 1, end).join('') });
          i = end + 1;
          continue;
        }
      }
    }
    if ((char === 'h' || char === 'H' || char === 'w' || char === 'W') && opensAt(i)) {
      const link = linkAt(text, offsets[i]);
      if (link) {
        const length = Array.from(link).length;
        units.push({ kind: 'link', text: link, href: /^www\./i.test(link) ? `https://${link}` : link });
        i += length;
        continue;
      }
    }
    units.push(char);
    i += 1;
  }
  return units;
}

/** The index of the "```" closing a monospace run whose text starts at `from`, or null. */
function findMonoEnd(chars: string[], from: number): number | null {
  for (let j = from + 1; j + 2 < chars.length; j++) {
    if (chars[j] === '`' && chars[j + 1] === '`' && chars[j + 2] === '`') {
      const inside = chars.slice(from, j).join('');
      return inside.trim() ? j : null;
    }
  }
  return null;
}

/** The index of the "`" closing inline code whose text starts at `from` (same line), or null. */
function findCodeEnd(chars: string[], from: number): number | null {
  if (chars[from] === undefined || SPACE.test(chars[from])) return null;
  for (let j = from + 1; j < chars.length; j++) {
    if (chars[j] === '\n') return null;
    if (chars[j] === '`') return !SPACE.test(chars[j - 1]) && !isWord(chars[j + 1]) ? j : null;
  }
  return null;
}

/** Splits the units into lines at the line breaks outside monospace. */
function splitLines(units: Unit[]): Unit[][] {
  const lines: Unit[][] = [[]];
  for (const unit of units) {
    if (unit === '\n') lines.push([]);
    else lines[lines.length - 1].push(unit);
  }
  return lines;
}

/** Emphasis over `units[from, to)`, looking around at the whole line for the boundaries. */
function inline(units: Unit[], from: number, to: number): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ kind: 'text', text });
    text = '';
  };
  let i = from;
  while (i < to) {
    const unit = units[i];
    if (typeof unit !== 'string') {
      flush();
      out.push(unit);
      i += 1;
      continue;
    }
    const kind = MARKERS[unit];
    if (kind && !isWord(units[i - 1]) && i + 1 < to && !isSpace(units[i + 1])) {
      let end = -1;
      for (let j = i + 2; j < to; j++) {
        if (units[j] === unit && !isSpace(units[j - 1]) && !isWord(units[j + 1])) {
          end = j;
          break;
        }
      }
      if (end > 0) {
        flush();
        out.push({ kind, children: inline(units, i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    text += unit;
    i += 1;
  }
  flush();
  return out;
}

type LineHead = { kind: 'text' | 'quote' | 'bullet' } | { kind: 'numbered'; marker: string };

/** A line's quote or list marker, and how many units it takes. */
function lineHead(units: Unit[]): { head: LineHead; skip: number } {
  const rest = (skip: number) => units.slice(skip).some((u) => !isSpace(u));
  const [first, second] = units;
  if (first === '>' && second === ' ' && rest(2)) return { head: { kind: 'quote' }, skip: 2 };
  if ((first === '-' || first === '*') && second === ' ' && rest(2)) return { head: { kind: 'bullet' }, skip: 2 };
  let digits = 0;
  while (typeof units[digits] === 'string' && /^[0-9]$/.test(units[digits] as string)) digits += 1;
  if (digits > 0 && digits <= 3 && units[digits] === '.' && units[digits + 1] === ' ' && rest(digits + 2)) {
    return { head: { kind: 'numbered', marker: `${units.slice(0, digits).join('')}.` }, skip: digits + 2 };
  }
  return { head: { kind: 'text' }, skip: 0 };
}

/** Parses a message's text into lines of formatted pieces. */
export function parseWhatsApp(text: string): Line[] {
  return splitLines(tokenize(text)).map((units) => {
    const { head, skip } = lineHead(units);
    return { ...head, content: inline(units, skip, units.length) };
  });
}

/** The visible text of pieces (markers removed). */
export function inlineText(content: Inline[]): string {
  return content.map((node) => ('children' in node ? inlineText(node.children) : node.text)).join('');
}

/** A list line's visible marker ("•", "2."), or "" for other lines. */
export function lineMarker(line: Line): string {
  if (line.kind === 'bullet') return '•';
  if (line.kind === 'numbered') return line.marker;
  return '';
}

/**
 * The pieces of a one-line preview: every line's pieces, list markers kept, joined by spaces, cut
 * at `max` visible characters with "...".
 */
export function previewInline(text: string, max: number): Inline[] {
  const joined: Inline[] = [];
  for (const line of parseWhatsApp(text)) {
    const marker = lineMarker(line);
    const content = line.content.map(flattenBreaks);
    if (joined.length > 0 && (marker || content.length > 0)) joined.push({ kind: 'text', text: ' ' });
    if (marker) joined.push({ kind: 'text', text: `${marker} ` });
    joined.push(...content);
  }
  const kept = cut(joined, max);
  return kept.cut ? [...kept.nodes, { kind: 'text', text: '...' }] : kept.nodes;
}

/** Line breaks inside monospace become spaces (a preview is one line). */
function flattenBreaks(node: Inline): Inline {
  if ('children' in node) return { ...node, children: node.children.map(flattenBreaks) };
  if (node.kind === 'mono') return { ...node, text: node.text.replace(/\s*\n\s*/g, ' ') };
  return node;
}

/** Keeps the first `max` visible characters of `nodes`; `cut` tells whether something was left out. */
function cut(nodes: Inline[], max: number): { nodes: Inline[]; left: number; cut: boolean } {
  const out: Inline[] = [];
  let left = max;
  for (const node of nodes) {
    if (left <= 0) return { nodes: out, left: 0, cut: true };
    if ('children' in node) {
      const inner = cut(node.children, left);
      out.push({ ...node, children: inner.nodes });
      left = inner.left;
      if (inner.cut) return { nodes: out, left: 0, cut: true };
      continue;
    }
    const chars = Array.from(node.text);
    if (chars.length <= left) {
      out.push(node);
      left -= chars.length;
      continue;
    }
    out.push({ ...node, text: chars.slice(0, left).join('') });
    return { nodes: out, left: 0, cut: true };
  }
  return { nodes: out, left, cut: false };
}

/** The text without its markers, lines kept (list markers shown as "•" / "2."). */
export function plainText(text: string): string {
  return parseWhatsApp(text)
    .map((line) => {
      const marker = lineMarker(line);
      return `${line.kind === 'quote' ? '> ' : marker ? `${marker} ` : ''}${inlineText(line.content)}`;
    })
    .join('\n');
}

/** A run of text with one style, for drawing (the PDF). */
export interface StyledRun {
  text: string;
  bold: boolean;
  italic: boolean;
  strike: boolean;
  mono: boolean;
}

const PLAIN: Omit<StyledRun, 'text'> = { bold: false, italic: false, strike: false, mono: false };

function runsOf(content: Inline[], style: Omit<StyledRun, 'text'>, out: StyledRun[]): void {
  for (const node of content) {
    switch (node.kind) {
      case 'bold':
        runsOf(node.children, { ...style, bold: true }, out);
        break;
      case 'italic':
        runsOf(node.children, { ...style, italic: true }, out);
        break;
      case 'strike':
        runsOf(node.children, { ...style, strike: true }, out);
        break;
      case 'mono':
      case 'code':
        out.push({ ...style, mono: true, text: node.text });
        break;
      default:
        out.push({ ...style, text: node.text });
    }
  }
}

/**
 * The text as styled runs, markers removed; lines end with "\n" runs (a quote line keeps "> ",
 * list lines their "•" / "2."). Neighbouring runs of one style are merged.
 */
export function styledRuns(text: string): StyledRun[] {
  const runs: StyledRun[] = [];
  parseWhatsApp(text).forEach((line, index) => {
    if (index > 0) runs.push({ ...PLAIN, text: '\n' });
    const marker = line.kind === 'quote' ? '>' : lineMarker(line);
    if (marker) runs.push({ ...PLAIN, text: `${marker} ` });
    runsOf(line.content, PLAIN, runs);
  });
  const merged: StyledRun[] = [];
  for (const run of runs) {
    const last = merged.at(-1);
    if (last && last.bold === run.bold && last.italic === run.italic && last.strike === run.strike && last.mono === run.mono) last.text += run.text;
    else if (run.text) merged.push({ ...run });
  }
  return merged;
}
