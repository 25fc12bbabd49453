/**
 * A message's text as WhatsApp shows it (see `lib/whatsapp/format`): real <strong>, <em>, <s>,
 * <code> and <pre> elements built as React nodes (never HTML strings), links clickable.
 * `FormattedText` renders every line (the bubbles, the quoted message); `FormattedPreview` one
 * line cut at a length (the inbox list, the notifications).
 */
import { Fragment, useMemo, type ReactNode } from 'react';
import { Box, Link } from '@mui/material';
import { lineMarker, parseWhatsApp, previewInline, type Inline, type Line } from '../lib/whatsapp/format';

const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';

function renderInline(nodes: Inline[], links: boolean): ReactNode[] {
  return nodes.map((node, i) => {
    switch (node.kind) {
      case 'text':
        return <Fragment key={i}>{node.text}</Fragment>;
      case 'bold':
        return <strong key={i}>{renderInline(node.children, links)}</strong>;
      case 'italic':
        return <em key={i}>{renderInline(node.children, links)}</em>;
      case 'strike':
        return <s key={i}>{renderInline(node.children, links)}</s>;
      case 'mono':
        return (
          <Box key={i} component="code" sx={{ fontFamily: MONO, fontSize: '0.95em' }}>
            {node.text}
          </Box>
        );
      case 'code':
        return (
          <Box key={i} component="code" sx={{ fontFamily: MONO, fontSize: '0.9em', bgcolor: 'action.hover', borderRadius: 0.5, px: 0.5 }}>
            {node.text}
          </Box>
        );
      case 'link':
        return links ? (
          <Link key={i} href={node.href} target="_blank" rel="noopener noreferrer" sx={{ wordBreak: 'break-all' }}>
            {node.text}
          </Link>
        ) : (
          <Fragment key={i}>{node.text}</Fragment>
        );
    }
  });
}

function renderLine(line: Line, index: number, links: boolean): ReactNode {
  const content = renderInline(line.content, links);
  const only = line.content.length === 1 ? line.content[0] : null;
  if (line.kind === 'text' && only?.kind === 'mono') {
    return (
      <Box key={index} component="pre" sx={{ m: 0, fontFamily: MONO, fontSize: '0.95em', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {only.text}
      </Box>
    );
  }
  switch (line.kind) {
    case 'text':
      return (
        <Box key={index} component="span" sx={{ display: 'block', minHeight: '1lh' }}>
          {content}
        </Box>
      );
    case 'quote':
      return (
        <Box key={index} component="span" data-kind="quote" sx={{ display: 'block', borderLeft: '3px solid', borderColor: 'divider', pl: 1, opacity: 0.85 }}>
          {content}
        </Box>
      );
    case 'bullet':
    case 'numbered':
      return (
        <Box key={index} component="span" data-kind={line.kind} sx={{ display: 'flex', gap: 0.75, pl: 0.5 }}>
          <span aria-hidden={line.kind === 'bullet'}>{lineMarker(line)}</span>
          <span>{content}</span>
        </Box>
      );
  }
}

interface Props {
  text: string;
  /** Links open in a new tab (true); false shows them as text (a quoted message). */
  links?: boolean;
}

/** Every line of a text, formatted. Its container should be a block (not a <p>): lines are blocks. */
export function FormattedText({ text, links = true }: Props) {
  const lines = useMemo(() => parseWhatsApp(text), [text]);
  return <>{lines.map((line, i) => renderLine(line, i, links))}</>;
}

/** One line of a text, formatted, cut at `max` visible characters. */
export function FormattedPreview({ text, max }: { text: string; max: number }) {
  const nodes = useMemo(() => previewInline(text, max), [text, max]);
  return <>{renderInline(nodes, false)}</>;
}
