import { beforeEach, describe, expect, it } from 'vitest';
import i18n from 'i18next';
import { jsPDF } from 'jspdf';
import { setLanguage } from '../../../lib/i18n';
import { messageSchema, type Message } from '../messages/types';
import { messageFixture, ticketFixture } from '../../../test/inbox-fixtures';
import { ticketSchema } from '../types';
import type { StyledRun } from '../../../lib/whatsapp/format';
import { exportBlocks, layoutPages, pdfSafe, plainRun, renderTicketPdf, wrapRuns, type Block, type BlockStyle, type ExportInput } from './document';
import { exportLabels } from './exportTicket';

/** The strings drawn in an uncompressed jsPDF output, in drawing order. */
function pdfStrings(output: string): string[] {
  return [...output.matchAll(/\(((?:\\.|[^\\)])*)\)\s*Tj/g)].map((m) => m[1].replace(/\\([\\()])/g, '$1'));
}

/** The strings drawn with the font each is drawn in ("Helvetica-Bold", "Courier"...). */
function pdfFonts(output: string): [font: string, text: string][] {
  const objects = new Map([...output.matchAll(/(\d+) 0 obj\s*<<\s*\/Type \/Font\s*\/BaseFont \/([\w-]+)/g)].map((m) => [m[1], m[2]]));
  const resources = new Map([...output.matchAll(/\/(F\d+) (\d+) 0 R/g)].map((m) => [m[1], objects.get(m[2]) ?? m[1]]));
  return [...output.matchAll(/\/(F\d+) [\d.]+ Tf[\s\S]*?\(((?:\\.|[^\\)])*)\)\s*Tj/g)].map((m) => [resources.get(m[1]) ?? m[1], m[2].replace(/\\([\\()])/g, '$1')]);
}

/** Straight lines stroked in the output (the header rule, strikethroughs). */
const strokes = (output: string) => output.match(/ l\s+S/g)?.length ?? 0;

const ticket = ticketSchema.parse(ticketFixture(7, { contact: { ...ticketFixture(7).contact, name: 'Maria Souza', number: '55119****0001' } }));

function message(id: number, overrides: Record<string, unknown> = {}): Message {
  return messageSchema.parse(messageFixture(id, { createdAt: `2026-03-0${1 + (id % 5)}T12:${String(id % 60).padStart(2, '0')}:00Z`, ...overrides }));
}

function input(messages: Message[]): ExportInput {
  return { ticket, messages, users: new Map([[1, 'Admin'], [2, 'Bia']]), exportedAt: new Date('2026-03-10T15:00:00Z') };
}

const labels = () => exportLabels(i18n.t, 7);

beforeEach(async () => {
  await setLanguage('pt');
});

describe('pdfSafe', () => {
  it('keeps what the standard font draws and replaces the rest', () => {
    expect(pdfSafe('Ação à vista – “ok” €5')).toBe('Ação à vista – “ok” €5');
    expect(pdfSafe('Şükrü ığdır')).toBe('Sükrü igdir');
    expect(pdfSafe('obrigado 👍\tfim')).toBe('obrigado ?    fim');
    expect(pdfSafe('linha 1\nlinha 2')).toBe('linha 1\nlinha 2');
  });
});

describe('exportBlocks', () => {
  it('starts with the header: contact as returned (masked number), ticket, connection, queue, attendant, date', () => {
    const blocks = exportBlocks(input([]), labels());
    expect(blocks.map((b) => b.text)).toEqual([
      'Atendimento #7',
      'Contato: Maria Souza',
      'Número: 55119****0001',
      'Ticket: #7',
      'Conexão: Comercial',
      'Fila: Suporte',
      'Atendente: Admin',
      expect.stringMatching(/^Exportado em: 10\/03\/2026 \d\d:00$/),
    ]);
    const none = exportBlocks({ ...input([]), ticket: { ...ticket, queue: null, user: null, whatsapp: null } }, labels());
    expect(none.map((b) => b.text)).toEqual(expect.arrayContaining(['Fila: -', 'Atendente: -', 'Conexão: -']));
  });

  it('writes each message with time, author and body; media, notes and deleted messages per spec', () => {
    const messages = [
      message(1, { body: 'Olá, preciso de ajuda' }),
      message(2, { fromMe: true, userId: 2, body: 'Claro!' }),
      message(3, { fromMe: true, userId: 1, isPrivate: true, body: 'cliente VIP' }),
      message(4, { mediaType: 'image', mediaUrl: '/m/4', mediaName: 'foto.jpg', body: 'segue a foto' }),
      message(5, { mediaType: 'audio', mediaUrl: '/m/5', mediaName: 'audio.mp3', body: 'audio.mp3' }),
      message(6, { isDeleted: true, body: 'segredo' }),
      message(7, { fromMe: true, userId: 2, isDeleted: true, body: 'errado' }),
      message(8, { mediaType: 'call_log', body: '' }),
      message(9, { fromMe: true, userId: 99, body: 'pelo celular' }),
      message(10, { participant: 'João (grupo)', body: 'oi grupo' }),
      message(11, { mediaType: 'gap', body: '2026-03-02T10:01:00Z/2026-03-03T10:09:00Z' }),
    ];
    const blocks = exportBlocks(input(messages), labels()).slice(8);
    const authors = blocks.filter((b) => b.style === 'author').map((b) => b.text.replace(/^\d\d\/\d\d\/\d{4} \d\d:\d\d( {2}|$)/, ''));
    // A gap notice is from no one.
    expect(authors).toEqual(['Maria Souza', 'Bia', 'Nota privada - Admin', 'Maria Souza', 'Maria Souza', 'Maria Souza', 'Bia', 'Maria Souza', 'Atendente', 'João (grupo)', '']);
    const bodies = blocks.filter((b) => b.style === 'body' || (b.style === 'notice' && !b.text.startsWith('>'))).map((b) => b.text);
    expect(bodies).toEqual([
      'Olá, preciso de ajuda',
      'Claro!',
      'cliente VIP',
      '[imagem] foto.jpg\nsegue a foto',
      '[áudio] audio.mp3',
      'Mensagem apagada pelo contato',
      'Essa mensagem foi apagada',
      'Chamada perdida',
      'pelo celular',
      'oi grupo',
      expect.stringMatching(/^A conexão ficou fora do ar de 0[23]\/03\/2026 \d\d:01 a 0[34]\/03\/2026 \d\d:09: mensagens deste período podem estar faltando$/),
    ]);
    expect(blocks.find((b) => b.style === 'author')?.text).toMatch(/^0[1-6]\/03\/2026 \d\d:01 {2}Maria Souza$/);
  });

  it('removes the formatting markers and keeps the formatting as runs', () => {
    const blocks = exportBlocks(
      input([
        message(1, { body: '*negrito* _itálico_ ~riscado~ ```mono``` 2*3*4', quotedMsg: { id: 9, body: '*citado*', fromMe: false, isDeleted: false } }),
        message(2, { mediaType: 'image', mediaUrl: '/m/2', mediaName: 'foto_1_.jpg', body: '_legenda_' }),
      ]),
      labels(),
    ).slice(8);
    const bodies = blocks.filter((b) => b.style === 'body');
    expect(bodies.map((b) => b.text)).toEqual(['negrito itálico riscado mono 2*3*4', '[imagem] foto_1_.jpg\nlegenda']);
    expect(bodies[0].runs?.filter((r) => r.bold || r.italic || r.strike || r.mono).map((r) => [r.text, r.bold, r.italic, r.strike, r.mono])).toEqual([
      ['negrito', true, false, false, false],
      ['itálico', false, true, false, false],
      ['riscado', false, false, true, false],
      ['mono', false, false, false, true],
    ]);
    expect(bodies[1].runs?.find((r) => r.italic)?.text).toBe('legenda');
    expect(blocks.find((b) => b.text.startsWith('>'))?.text).toBe('> citado');
  });

  it('follows the language', async () => {
    await setLanguage('en');
    const blocks = exportBlocks(input([message(1, { mediaType: 'application', mediaUrl: '/m/1', mediaName: 'nota.pdf', body: '' })]), exportLabels(i18n.t, 7));
    expect(blocks[0].text).toBe('Ticket #7');
    expect(blocks.at(-1)?.text).toBe('[file] nota.pdf');
  });
});

describe('layoutPages', () => {
  // Ten characters a line, every style: enough to see the wrapping and the page breaks.
  const wrap = (runs: StyledRun[]) => (runs.map((r) => r.text).join('').match(/.{1,10}/g) ?? ['']).map((text) => [plainRun(text)]);
  const geometry = { height: 100, top: 10, bottom: 10, lineHeight: { title: 10, meta: 10, author: 10, body: 10, notice: 10 } as Record<BlockStyle, number>, gap: 0 };

  it('wraps paragraphs and breaks pages at the bottom margin', () => {
    const blocks: Block[] = [{ style: 'body', text: 'a'.repeat(25) + '\n' + 'b'.repeat(5) }];
    const pages = layoutPages(blocks, wrap, geometry);
    expect(pages).toHaveLength(1);
    expect(pages[0].map((l) => [l.text, l.y])).toEqual([
      ['aaaaaaaaaa', 20],
      ['aaaaaaaaaa', 30],
      ['aaaaa', 40],
      ['bbbbb', 50],
    ]);
    const long = layoutPages([{ style: 'body', text: 'x'.repeat(100) }], wrap, geometry);
    expect(long.map((p) => p.length)).toEqual([8, 2]);
  });

  it('never leaves a message author alone at the bottom of a page', () => {
    const blocks: Block[] = [
      { style: 'body', text: 'x'.repeat(70) },
      { style: 'author', text: 'Maria', keepWithNext: true },
      { style: 'body', text: 'oi' },
    ];
    const pages = layoutPages(blocks, wrap, geometry);
    expect(pages.map((p) => p.map((l) => l.text))).toEqual([Array(7).fill('xxxxxxxxxx'), ['Maria', 'oi']]);
  });
});

describe('renderTicketPdf', () => {
  it('draws the header and every body in order, over as many pages as needed', () => {
    const messages = Array.from({ length: 120 }, (_, i) => message(i + 1, { body: `Corpo número ${i + 1} (ok)`, fromMe: i % 3 === 0, userId: 1 }));
    const doc = renderTicketPdf(jsPDF, input(messages), labels(), { compress: false });
    const strings = pdfStrings(doc.output());
    expect(strings.slice(0, 3)).toEqual(['Atendimento #7', 'Contato: Maria Souza', 'Número: 55119****0001']);
    const bodies = strings.filter((s) => s.startsWith('Corpo número'));
    expect(bodies).toEqual(messages.map((m) => m.body));
    const pages = doc.getNumberOfPages();
    expect(pages).toBeGreaterThan(2);
    expect(strings.filter((s) => s.startsWith('Ticket #7 - Página'))).toEqual(Array.from({ length: pages }, (_, i) => `Ticket #7 - Página ${i + 1} de ${pages}`));
  });

  it('draws formatted text in bold, italic and Courier faces without the markers, and strikes through', () => {
    const body = 'Olá *negrito* _itálico_ *_os dois_* ```mono``` fim';
    const doc = renderTicketPdf(jsPDF, input([message(1, { body })]), labels(), { compress: false });
    const output = doc.output();
    expect(pdfFonts(output).filter(([, text]) => /negrito|itálico|os dois|mono/.test(text))).toEqual([
      ['Helvetica-Bold', 'negrito'],
      ['Helvetica-Oblique', 'itálico'],
      ['Helvetica-BoldOblique', 'os dois'],
      ['Courier', 'mono'],
    ]);
    const strings = pdfStrings(output);
    const start = strings.findIndex((text) => text.startsWith('Olá'));
    expect(strings.slice(start, start + 9).join('')).toBe('Olá negrito itálico os dois mono fim');
    const plain = strokes(renderTicketPdf(jsPDF, input([message(1, { body: 'riscado' })]), labels(), { compress: false }).output());
    const struck = renderTicketPdf(jsPDF, input([message(1, { body: '~riscado~' })]), labels(), { compress: false }).output();
    expect(strokes(struck)).toBe(plain + 1);
    expect(pdfStrings(struck)).toContain('riscado');
  });

  it('wraps a long body inside the page and keeps its words', () => {
    const body = Array.from({ length: 60 }, (_, i) => `palavra${i}`).join(' ');
    const doc = renderTicketPdf(jsPDF, input([message(1, { body })]), labels(), { compress: false });
    const strings = pdfStrings(doc.output());
    const lines = strings.filter((s) => s.includes('palavra'));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join(' ').split(/\s+/).filter(Boolean)).toEqual(body.split(' '));
  });
});

describe('wrapRuns', () => {
  const measure = (run: StyledRun) => run.text.length * (run.bold ? 2 : 1);
  const texts = (lines: StyledRun[][]) => lines.map((line) => line.map((r) => `${r.bold ? 'B:' : ''}${r.text}`));

  it('wraps at spaces by each run\'s width, merging pieces of one style', () => {
    const runs = [plainRun('aa bb '), { ...plainRun('cc dd'), bold: true }, plainRun(' ee')];
    expect(texts(wrapRuns(runs, 10, measure))).toEqual([['aa bb ', 'B:cc'], ['B:dd', ' ee']]);
  });

  it('cuts a word longer than the line', () => {
    expect(texts(wrapRuns([plainRun('abcdefghijkl mn')], 5, measure))).toEqual([['abcde'], ['fghij'], ['kl mn']]);
    expect(texts(wrapRuns([], 5, measure))).toEqual([[]]);
  });
});
