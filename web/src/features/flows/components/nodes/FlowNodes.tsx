/**
 * One custom React Flow node per type (spec 3 §2.13): its content, its input handle, its output
 * handle(s) (menu `a{n}`, randomizer and condition `a`/`b`), a red outline with the translated
 * issues, the drop-off badge and the node actions (marked `nodrag`).
 */
import { memo, type ReactNode } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { Box, Chip, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditIcon from '@mui/icons-material/Edit';
import { useTranslation } from 'react-i18next';
import type { NodeType } from '../../types';
import { openaiFields, questionFields, ticketQueueId, ticketQueueName, valueText, type MediaType } from '../../utils/nodes';
import { isTerminal, type EditorNode } from '../../utils/graph';
import { useFlowEditor } from './editor-context';
import { NODE_ICONS } from './node-icons';

const COLORS: Record<NodeType, string> = {
  start: '#3aba38',
  message: '#6865a5',
  interval: '#f7953b',
  img: '#6865a5',
  audio: '#6865a5',
  video: '#6865a5',
  menu: '#683ac8',
  randomizer: '#1fbade',
  question: '#f7953b',
  content: '#ec5858',
  ticket: '#f7953b',
  typebot: '#3aba38',
  openai: '#3aba38',
  condition: '#1fbade',
  singleBlock: '#ec5858',
};

const handleStyle = { width: 10, height: 10 };

/** The props React Flow gives the component of node type `T`: that type's data. */
type Props<T extends NodeType> = NodeProps<Extract<EditorNode, { type: T }>>;

function Shell({ id, type, selected, children, outputs }: { id: string; type: NodeType; selected: boolean; children: ReactNode; outputs?: ReactNode }) {
  const { t } = useTranslation();
  const { issues, stats, onEdit, onDuplicate, onDelete } = useFlowEditor();
  const nodeIssues = issues.get(id) ?? [];
  const stat = stats?.[id];
  const hasIssues = nodeIssues.length > 0;
  const Icon = NODE_ICONS[type];
  // Red with issues, blue when selected (spec 3 §2.13); else the theme's divider, visible on a dark canvas too.
  const outline = hasIssues ? { border: '2px solid #d32f2f' } : selected ? { border: '2px solid #1976d2' } : { border: 1, borderColor: 'divider' };
  const body = (
    <Box
      data-testid={`flow-node-${id}`}
      data-node-type={type}
      data-selected={selected ? 'true' : 'false'}
      data-has-issues={hasIssues ? 'true' : 'false'}
      sx={{ bgcolor: 'background.paper', borderRadius: 1, ...outline, minWidth: 180, maxWidth: 260, boxShadow: selected ? 3 : 1, fontSize: 12 }}
    >
      {type !== 'start' && <Handle type="target" position={Position.Left} style={handleStyle} />}
      <Stack direction="row" sx={{ alignItems: 'center', px: 1, py: 0.5, bgcolor: COLORS[type] ?? '#777', color: 'common.white', borderTopLeftRadius: 4, borderTopRightRadius: 4 }}>
        {Icon && <Icon sx={{ fontSize: 14, mr: 0.5 }} />}
        <Typography variant="caption" sx={{ fontWeight: 700, flex: 1 }}>
          {t(`flows.types.${type}` as 'flows.types.message', { defaultValue: type })}
        </Typography>
        {type !== 'start' && (
          <Stack direction="row" className="nodrag">
            <IconButton size="small" sx={{ color: 'inherit', p: 0.25 }} aria-label={t('flows.node.edit')} onClick={() => onEdit(id)} data-testid={`flow-node-edit-${id}`}>
              <EditIcon sx={{ fontSize: 14 }} />
            </IconButton>
            <IconButton size="small" sx={{ color: 'inherit', p: 0.25 }} aria-label={t('flows.node.duplicate')} onClick={() => onDuplicate(id)} data-testid={`flow-node-duplicate-${id}`}>
              <ContentCopyIcon sx={{ fontSize: 14 }} />
            </IconButton>
            <IconButton size="small" sx={{ color: 'inherit', p: 0.25 }} aria-label={t('flows.node.delete')} onClick={() => onDelete(id)} data-testid={`flow-node-delete-${id}`}>
              <DeleteOutlineIcon sx={{ fontSize: 14 }} />
            </IconButton>
          </Stack>
        )}
      </Stack>
      <Box sx={{ p: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{children}</Box>
      {stat && (
        <Box sx={{ px: 1, pb: 0.5 }}>
          <Chip size="small" variant="outlined" label={`${stat.entered} / ${stat.stopped}`} title={t('flows.editor.stats', stat)} data-testid={`flow-node-stats-${id}`} />
        </Box>
      )}
      {outputs ?? (!isTerminal(type) && <Handle type="source" position={Position.Right} style={handleStyle} />)}
    </Box>
  );
  if (!hasIssues) return body;
  return (
    <Tooltip
      title={
        <Box data-testid={`flow-node-issues-${id}`}>
          {nodeIssues.map((issue, index) => (
            <div key={index}>{t(`flows.issues.${issue.code}` as 'flows.issues.missing_start', { defaultValue: issue.message })}</div>
          ))}
        </Box>
      }
      placement="top"
      arrow
    >
      {body}
    </Tooltip>
  );
}

function Line({ children }: { children: ReactNode }) {
  return (
    <Typography variant="body2" sx={{ fontSize: 12 }}>
      {children}
    </Typography>
  );
}

/** A row with its own output handle on the right. */
function Branch({ id, label }: { id: string; label: string }) {
  return (
    <Box sx={{ position: 'relative', borderTop: '1px dashed rgba(0,0,0,0.15)', px: 1, py: 0.5, pr: 2 }} data-testid={`flow-handle-${id}`}>
      <Typography variant="caption">{label}</Typography>
      <Handle type="source" id={id} position={Position.Right} style={{ ...handleStyle, top: '50%' }} />
    </Box>
  );
}

export const StartNode = memo(({ id, data, selected }: Props<'start'>) => (
  <Shell id={id} type="start" selected={!!selected}>
    <Line>{data.label || 'Inicio do fluxo'}</Line>
  </Shell>
));

export const MessageNode = memo(({ id, data, selected }: Props<'message'>) => (
  <Shell id={id} type="message" selected={!!selected}>
    <Line>{data.label}</Line>
  </Shell>
));

export const IntervalNode = memo(({ id, data, selected }: Props<'interval'>) => (
  <Shell id={id} type="interval" selected={!!selected}>
    <Line>{data.label || `${data.sec ?? ''} s`}</Line>
  </Shell>
));

function MediaNode({ id, data, selected, type }: Props<MediaType> & { type: MediaType }) {
  const { t } = useTranslation();
  return (
    <Shell id={id} type={type} selected={!!selected}>
      <Line>{data.url || t('flows.node.noFile')}</Line>
      {type === 'audio' && data.record && <Line>{t('flows.node.record')}</Line>}
    </Shell>
  );
}
export const ImgNode = memo((props: Props<'img'>) => <MediaNode {...props} type="img" />);
export const AudioNode = memo((props: Props<'audio'>) => <MediaNode {...props} type="audio" />);
export const VideoNode = memo((props: Props<'video'>) => <MediaNode {...props} type="video" />);

export const MenuNode = memo(({ id, data, selected }: Props<'menu'>) => {
  const { t } = useTranslation();
  const options = data.arrayOption;
  return (
    <Shell
      id={id}
      type="menu"
      selected={!!selected}
      outputs={options.map((option, index) => {
        const number = option.number ?? index + 1;
        return <Branch key={`a${number}`} id={`a${number}`} label={`[${number}] ${option.value || t('flows.node.optionEmpty')}`} />;
      })}
    >
      <Line>{data.message}</Line>
    </Shell>
  );
});

export const RandomizerNode = memo(({ id, data, selected }: Props<'randomizer'>) => {
  const percent = data.percent ?? 0;
  return (
    <Shell
      id={id}
      type="randomizer"
      selected={!!selected}
      outputs={
        <>
          <Branch id="a" label={`A · ${percent}%`} />
          <Branch id="b" label={`B · ${100 - percent}%`} />
        </>
      }
    >
      <Line>{`${percent}% / ${100 - percent}%`}</Line>
    </Shell>
  );
});

export const ConditionNode = memo(({ id, data, selected }: Props<'condition'>) => {
  const { t } = useTranslation();
  return (
    <Shell
      id={id}
      type="condition"
      selected={!!selected}
      outputs={
        <>
          <Branch id="a" label={t('flows.node.trueBranch')} />
          <Branch id="b" label={t('flows.node.falseBranch')} />
        </>
      }
    >
      <Line>{`${data.key} ${data.condition} ${data.value}`.trim()}</Line>
    </Shell>
  );
});

export const QuestionNode = memo(({ id, data, selected }: Props<'question'>) => {
  const { message, answerKey } = questionFields(data);
  return (
    <Shell id={id} type="question" selected={!!selected}>
      <Line>{message}</Line>
      {answerKey && <Line>{`→ {${answerKey}}`}</Line>}
    </Shell>
  );
});

export const ContentNode = memo(({ id, data, selected }: Props<'content'>) => {
  const { t } = useTranslation();
  const { elements } = data;
  return (
    <Shell id={id} type="content" selected={!!selected}>
      {elements.map((element, index) => (
        <Line key={index}>
          {`${t(`flows.types.${element.type}` as 'flows.types.message', { defaultValue: element.type })}: ${element.original || element.value}`}
        </Line>
      ))}
      {elements.length === 0 && <Line>{t('flows.node.elements', { count: 0 })}</Line>}
    </Shell>
  );
});

export const TicketNode = memo(({ id, data, selected }: Props<'ticket'>) => {
  const { t } = useTranslation();
  const queueId = ticketQueueId(data);
  return (
    <Shell id={id} type="ticket" selected={!!selected}>
      <Line>{ticketQueueName(data) || (queueId ? `#${queueId}` : t('flows.node.noQueue'))}</Line>
    </Shell>
  );
});

export const TypebotNode = memo(({ id, data, selected }: Props<'typebot'>) => {
  const { t } = useTranslation();
  const integration = data.typebotIntegration;
  const name = integration && typeof integration === 'object' && !Array.isArray(integration) ? valueText(integration.name) : valueText(integration);
  return (
    <Shell id={id} type="typebot" selected={!!selected}>
      <Line>{name || t('flows.node.noIntegration')}</Line>
    </Shell>
  );
});

export const OpenAiNode = memo(({ id, data, selected }: Props<'openai'>) => {
  const settings = openaiFields(data);
  return (
    <Shell id={id} type="openai" selected={!!selected}>
      <Line>{settings.name}</Line>
    </Shell>
  );
});

export const SingleBlockNode = memo(({ id, selected }: NodeProps) => (
  <Shell id={id} type="singleBlock" selected={!!selected}>
    <Line>…</Line>
  </Shell>
));
