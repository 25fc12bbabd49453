/**
 * Create/edit dialogs for every node type (spec 3 §2.13, §5): one editor per node kind in
 * `node-dialogs/`, each validating with the spec's texts and handing the node's new data back;
 * the limits (interval, media sizes, condition operators) are the core's, through WASM.
 */
import { useRules } from '../../../lib/wasm/useRules';
import type { NodeDialogProps } from './node-dialogs/shell';
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

export type { NodeDialogProps } from './node-dialogs/shell';

/** The dialog for `type`; it opens once the core's rules (flow limits) are in. */
export function NodeDialog(props: NodeDialogProps) {
  const rules = useRules();
  if (!rules) return null;
  const limits = rules.flowLimits();
  switch (props.type) {
    case 'message':
      return <MessageDialog {...props} />;
    case 'interval':
      return <IntervalDialog {...props} limits={limits} />;
    case 'menu':
      return <MenuDialog {...props} />;
    case 'randomizer':
      return <RandomizerDialog {...props} />;
    case 'question':
      return <QuestionDialog {...props} />;
    case 'ticket':
      return <TicketDialog {...props} />;
    case 'typebot':
      return <TypebotDialog {...props} />;
    case 'openai':
      return <OpenAiDialog {...props} />;
    case 'condition':
      return <ConditionDialog {...props} limits={limits} />;
    case 'img':
    case 'audio':
    case 'video':
      return <MediaDialog {...props} media={props.type} limits={limits} />;
    case 'content':
      return <ContentDialog {...props} limits={limits} />;
    default:
      return null;
  }
}
