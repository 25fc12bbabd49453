import { describe, expect, it } from 'vitest';
import { parseWhatsApp, plainText, previewInline, styledRuns, type Inline, type Line } from './format';

const text = (value: string): Inline => ({ kind: 'text', text: value });
const bold = (...children: Inline[]): Inline => ({ kind: 'bold', children });
const italic = (...children: Inline[]): Inline => ({ kind: 'italic', children });
const strike = (...children: Inline[]): Inline => ({ kind: 'strike', children });
const mono = (value: string): Inline => ({ kind: 'mono', text: value });
const code = (value: string): Inline => ({ kind: 'code', text: value });
const link = (value: string, href = value): Inline => ({ kind: 'link', text: value, href });

/** The pieces of a one-line text. */
function one(value: string): Inline[] {
  const lines = parseWhatsApp(value);
  expect(lines).toHaveLength(1);
  expect(lines[0].kind).toBe('text');
  return lines[0].content;
}

describe('parseWhatsApp: emphasis', () => {
  it('reads the four markers', () => {
    expect(one('*negrito* _itálico_ ~riscado~ ```mono```')).toEqual([
      bold(text('negrito')),
      text(' '),
      italic(text('itálico')),
      text(' '),
      strike(text('riscado')),
      text(' '),
      mono('mono'),
    ]);
  });

  it('formats inside sentences and next to punctuation', () => {
    expect(one('Olá *Maria*, tudo bem?')).toEqual([text('Olá '), bold(text('Maria')), text(', tudo bem?')]);
    expect(one('(_nota_)')).toEqual([text('('), italic(text('nota')), text(')')]);
    expect(one('*um dois três*')).toEqual([bold(text('um dois três'))]);
  });

  it('opens and closes only at word boundaries', () => {
    expect(one('2*3*4')).toEqual([text('2*3*4')]);
    expect(one('snake_case_name')).toEqual([text('snake_case_name')]);
    expect(one('a~b~c')).toEqual([text('a~b~c')]);
    expect(one('*a*b')).toEqual([text('*a*b')]);
    expect(one('_snake_case_')).toEqual([italic(text('snake_case'))]);
  });

  it('needs text right inside the markers', () => {
    expect(one('2 * 3 * 4')).toEqual([text('2 * 3 * 4')]);
    expect(one('a * not bold*')).toEqual([text('a * not bold*')]);
    expect(one('*not bold *')).toEqual([text('*not bold *')]);
    expect(one('**')).toEqual([text('**')]);
    expect(one('__ ~~')).toEqual([text('__ ~~')]);
    expect(one('*a *b*')).toEqual([bold(text('a *b'))]);
  });

  it('leaves unclosed markers as typed', () => {
    expect(one('*bold')).toEqual([text('*bold')]);
    expect(one('_italic and *bold*')).toEqual([text('_italic and '), bold(text('bold'))]);
    expect(one('```mono')).toEqual([text('```mono')]);
    expect(one('`code')).toEqual([text('`code')]);
  });

  it('nests', () => {
    expect(one('*_bold italic_*')).toEqual([bold(italic(text('bold italic')))]);
    expect(one('_*~all~*_')).toEqual([italic(bold(strike(text('all'))))]);
    expect(one('*bold _and italic_ here*')).toEqual([bold(text('bold '), italic(text('and italic')), text(' here'))]);
  });

  it('does not cross lines', () => {
    const lines = parseWhatsApp('*one\ntwo*');
    expect(lines.map((l) => l.content)).toEqual([[text('*one')], [text('two*')]]);
    expect(parseWhatsApp('_a\nb_ `c\nd`').map((l) => l.content)).toEqual([[text('_a')], [text('b_ `c')], [text('d`')]]);
  });

  it('treats emoji as boundaries', () => {
    expect(one('👍*ok*👍')).toEqual([text('👍'), bold(text('ok')), text('👍')]);
    expect(one('*😀*')).toEqual([bold(text('😀'))]);
    expect(one('_tchau_ 👋🏽')).toEqual([italic(text('tchau')), text(' 👋🏽')]);
  });

  it('keeps letters of every script as words', () => {
    expect(one('ação*x*')).toEqual([text('ação*x*')]);
    expect(one('çok_güzel_')).toEqual([text('çok_güzel_')]);
    expect(one('*Çağrı*')).toEqual([bold(text('Çağrı'))]);
  });
});

describe('parseWhatsApp: monospace and code', () => {
  it('formats nothing inside monospace, which may span lines', () => {
    expect(one('```*not* _this_```')).toEqual([mono('*not* _this_')]);
    const lines = parseWhatsApp('antes\n```linha 1\n*linha* 2```\ndepois');
    expect(lines.map((l) => l.content)).toEqual([[text('antes')], [mono('linha 1\n*linha* 2')], [text('depois')]]);
  });

  it('reads inline code on one line, with nothing formatted inside', () => {
    expect(one('run `npm *install*` now')).toEqual([text('run '), code('npm *install*'), text(' now')]);
    expect(one('a`b`c')).toEqual([text('a`b`c')]);
    expect(one('` spaced `')).toEqual([text('` spaced `')]);
  });

  it('formats around monospace', () => {
    expect(one('*see ```x```*')).toEqual([bold(text('see '), mono('x'))]);
  });
});

describe('parseWhatsApp: links', () => {
  it('takes links whole, underscores and tildes included', () => {
    expect(one('veja https://exemplo.com/a_b_c/~joao/x~y')).toEqual([text('veja '), link('https://exemplo.com/a_b_c/~joao/x~y')]);
    expect(one('_https://x.com/_foo_/_')).toEqual([italic(link('https://x.com/_foo_/'))]);
    expect(one('www.site.com.br/snake_case')).toEqual([link('www.site.com.br/snake_case', 'https://www.site.com.br/snake_case')]);
  });

  it('leaves the sentence punctuation and the markers around a link outside it', () => {
    expect(one('acesse https://exemplo.com.')).toEqual([text('acesse '), link('https://exemplo.com'), text('.')]);
    expect(one('*https://exemplo.com/a_b*')).toEqual([bold(link('https://exemplo.com/a_b'))]);
    expect(one('(https://exemplo.com/x_(y))')).toEqual([text('('), link('https://exemplo.com/x_(y)'), text(')')]);
  });

  it('is not a link without a host or inside a word', () => {
    expect(one('www. nada')).toEqual([text('www. nada')]);
    expect(one('xhttps://a.com')).toEqual([text('xhttps://a.com')]);
  });
});

describe('parseWhatsApp: quotes and lists', () => {
  it('reads quote, bullet and numbered lines', () => {
    const lines: Line[] = parseWhatsApp('> citado *aqui*\n- um\n* dois\n1. três\n12. doze\ntexto');
    expect(lines).toEqual([
      { kind: 'quote', content: [text('citado '), bold(text('aqui'))] },
      { kind: 'bullet', content: [text('um')] },
      { kind: 'bullet', content: [text('dois')] },
      { kind: 'numbered', marker: '1.', content: [text('três')] },
      { kind: 'numbered', marker: '12.', content: [text('doze')] },
      { kind: 'text', content: [text('texto')] },
    ]);
  });

  it('needs the space and some text after the marker', () => {
    expect(parseWhatsApp('>sem espaço\n-1\n1.5 litros\n- \n>').map((l) => l.kind)).toEqual(['text', 'text', 'text', 'text', 'text']);
    expect(parseWhatsApp('*negrito* no início')[0]).toEqual({ kind: 'text', content: [bold(text('negrito')), text(' no início')] });
  });

  it('keeps empty lines', () => {
    expect(parseWhatsApp('a\n\nb').map((l) => l.content)).toEqual([[text('a')], [], [text('b')]]);
  });
});

describe('plainText and previews', () => {
  it('removes the markers and keeps the lines', () => {
    expect(plainText('*negrito* _itálico_ ~riscado~ ```mono```')).toBe('negrito itálico riscado mono');
    expect(plainText('2*3*4 e *oi*\n- item\n> citação')).toBe('2*3*4 e oi\n• item\n> citação');
  });

  it('gives one line with the formatting, cut at the visible length', () => {
    expect(previewInline('*negrito* _itálico_', 40)).toEqual([bold(text('negrito')), text(' '), italic(text('itálico'))]);
    expect(previewInline('linha 1\n- item\n\n> fim', 40)).toEqual([text('linha 1'), text(' '), text('• '), text('item'), text(' '), text('fim')]);
    expect(previewInline('*abcdefghij* resto', 5)).toEqual([bold(text('abcde')), text('...')]);
    expect(previewInline('abc *de*', 5)).toEqual([text('abc '), bold(text('d')), text('...')]);
    expect(previewInline('abcde*x*', 5)).toEqual([text('abcde'), text('...')]);
    expect(previewInline('*abc* de', 3)).toEqual([bold(text('abc')), text('...')]);
    expect(previewInline('```a\nb```', 10)).toEqual([mono('a b')]);
    expect(previewInline('curto', 40)).toEqual([text('curto')]);
  });
});

describe('styledRuns', () => {
  it('merges neighbouring runs of one style and marks each style', () => {
    expect(styledRuns('Olá *Maria* e _`x`_\n- ~não~')).toEqual([
      { text: 'Olá ', bold: false, italic: false, strike: false, mono: false },
      { text: 'Maria', bold: true, italic: false, strike: false, mono: false },
      { text: ' e ', bold: false, italic: false, strike: false, mono: false },
      { text: 'x', bold: false, italic: true, strike: false, mono: true },
      { text: '\n• ', bold: false, italic: false, strike: false, mono: false },
      { text: 'não', bold: false, italic: false, strike: true, mono: false },
    ]);
  });

  it('keeps a plain text as one run', () => {
    expect(styledRuns('Corpo número 1 (ok)')).toEqual([{ text: 'Corpo número 1 (ok)', bold: false, italic: false, strike: false, mono: false }]);
  });
});
