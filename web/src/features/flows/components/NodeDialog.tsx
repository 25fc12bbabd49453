/**
 * Create/edit dialogs for every node type (spec 3 §2.13, §5): one editor per node kind in
 * `node-dialogs/`, each validating with the spec's texts and handing the node's new data back;
 * the limits (interval, media sizes, condition operators) are the core's, through WASM.
 */
import { useRules } from '../../../lib/wasm/useRules';
import type { NodeDataOf, NodeKind, NodeType } from '../types';
import { MessageDialog } from './node-dialogs/MessageDialog';
import { IntervalDialog } from './node-dialogs/IntervalDialog';
import { MenuDialog } from './node-dialogs/MenuDialog';
import { RandomizerDialog } from './node-dialogs/RandomizerDialog';
import { QuestionDialog } from './node-dialogs/QuestionDialog';
import { TicketDialog } from './node-dialogs/TicketDialog';
import { TypebotDialog } from './node-dialogs/TypebotDialog';
import { OpenAiDialog } from './node-dialogs/OpenAiDialog';
import { ConditionDialog } from './node-dialogs/ConditionDialog';
import { MediaDialog } from './node-dialogs/MediaDialog';
import { ContentDialog } from './node-dialogs/ContentDialog';

/** What a dialog edits: a node type and its data (null when creating). */
export type DialogTarget = { [T in NodeType]: { type: T; data: NodeDataOf<T> | null } }[NodeType];

export interface NodeDialogProps {
  target: DialogTarget;
  /** The node's new type and data; `handles` as the menu dialog gives them (see `node-dialogs/shell`). */
  onSubmit: (kind: NodeKind, handles?: Record<string, string | null>) => void;
  onClose: () => void;
}

/** The dialog for the target's type; it opens once the core's rules (flow limits) are in. */
export function NodeDialog({ target, onSubmit, onClose }: NodeDialogProps) {
  const rules = useRules();
  if (!rules) return null;
  const limits = rules.flowLimits();
  switch (target.type) {
    case 'message':
      return <MessageDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'message', data })} onClose={onClose} />;
    case 'interval':
      return <IntervalDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'interval', data })} onClose={onClose} limits={limits} />;
    case 'menu':
      return <MenuDialog data={target.data} onSubmit={(data, handles) => onSubmit({ type: 'menu', data }, handles)} onClose={onClose} />;
    case 'randomizer':
      return <RandomizerDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'randomizer', data })} onClose={onClose} />;
    case 'question':
      return <QuestionDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'question', data })} onClose={onClose} />;
    case 'ticket':
      return <TicketDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'ticket', data })} onClose={onClose} />;
    case 'typebot':
      return <TypebotDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'typebot', data })} onClose={onClose} />;
    case 'openai':
      return <OpenAiDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'openai', data })} onClose={onClose} />;
    case 'condition':
      return <ConditionDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'condition', data })} onClose={onClose} limits={limits} />;
    case 'img':
    case 'audio':
    case 'video': {
      const media = target.type;
      return <MediaDialog data={target.data} onSubmit={(data) => onSubmit({ type: media, data })} onClose={onClose} media={media} limits={limits} />;
    }
    case 'content':
      return <ContentDialog data={target.data} onSubmit={(data) => onSubmit({ type: 'content', data })} onClose={onClose} limits={limits} />;
    default:
      return null;
  }
}
