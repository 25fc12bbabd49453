/**
 * The flow editor (spec 3 §2.13, route /flowbuilder/{id}) on React Flow: the speed dial adds nodes,
 * double-click edits, Backspace/Delete removes, save stores the draft and shows the core's issues
 * on the nodes, publish makes the draft live, versions can be restored, and per-node drop-off is
 * shown once a version is published. Split into its own chunk with React Flow.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import {
  addEdge,
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesState,
  useReactFlow,
  type Connection,
  type NodeMouseHandler,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Alert, Box, Button, Chip, CircularProgress, ListItemText, Menu, MenuItem, Paper, SpeedDial, SpeedDialAction, SpeedDialIcon, Stack, Typography } from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import HistoryIcon from '@mui/icons-material/History';
import PublishIcon from '@mui/icons-material/Publish';
import SaveIcon from '@mui/icons-material/Save';
import { useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../../lib/api';
import { formatDateTime } from '../utils/format';
import { toast } from '../../../lib/toast';
import { toastFlowError } from '../utils/errors';
import { useFlow, useFlowStats, useFlowVersions, usePublishFlow, useRestoreFlowVersion, useSaveFlowGraph } from '../api/flows';
import { flowIssueSchema, type Flow, type FlowIssue, type NodeData, type NodeType } from '../types';
import { addNode, deleteElements, duplicateNode, fromEditor, remapHandles, toEditor, type EditorEdge, type EditorNode } from '../utils/graph';
import { ADDABLE_TYPES, startData } from '../utils/nodes';
import { NODE_ICONS } from './nodes/node-icons';
import { nodeTypes } from './nodes/node-types';
import { FlowEditorContext, type FlowEditorContextValue } from './nodes/editor-context';
import { NodeDialog } from './NodeDialog';
import { SimulationPanel } from './SimulationPanel';

/** The flow is fetched after this delay (spec 3 §9). */
export const FLOW_FETCH_DELAY_MS = 500;

export default function FlowEditorPage() {
  const { id } = useParams();
  const flowId = Number(id);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setReady(true), FLOW_FETCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  const valid = Number.isInteger(flowId) && flowId > 0;
  const flow = useFlow(flowId, ready && valid);
  const { t } = useTranslation();

  if (!valid || flow.isError) {
    return (
      <Alert severity="error" data-testid="flow-editor-error">
        {t('flows.editor.notFound')}
      </Alert>
    );
  }
  if (!flow.data) {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', p: 6 }}>
        <CircularProgress data-testid="flow-editor-loading" />
      </Box>
    );
  }
  return (
    <ReactFlowProvider>
      <FlowCanvas key={flow.dataUpdatedAt} flow={flow.data} />
    </ReactFlowProvider>
  );
}

type DialogState = { mode: 'create'; type: NodeType } | { mode: 'edit'; id: string; type: NodeType; data: NodeData };

function issuesFrom(error: unknown): FlowIssue[] | null {
  if (!isApiError(error) || !error.body || typeof error.body !== 'object') return null;
  const parsed = flowIssueSchema.array().safeParse((error.body as { issues?: unknown }).issues);
  return parsed.success ? parsed.data : null;
}

function FlowCanvas({ flow }: { flow: Flow }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const initial = useMemo(() => toEditor(flow.flow), [flow.flow]);
  const [nodes, setNodes, onNodesChange] = useNodesState<EditorNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<EditorEdge>(initial.edges);
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const [issues, setIssues] = useState<FlowIssue[]>([]);
  const [published, setPublished] = useState<number | null>(flow.version);
  const [versionsAnchor, setVersionsAnchor] = useState<HTMLElement | null>(null);
  const save = useSaveFlowGraph(flow.id);
  const publish = usePublishFlow(flow.id);
  const restore = useRestoreFlowVersion(flow.id);
  const versions = useFlowVersions(flow.id, !!versionsAnchor);
  const stats = useFlowStats(flow.id, published !== null);

  const onConnect = useCallback((connection: Connection) => setEdges((list) => addEdge(connection, list)), [setEdges]);

  const { getNode } = useReactFlow<EditorNode, EditorEdge>();
  const openEdit = useCallback(
    (id: string) => {
      const node = getNode(id);
      if (!node || node.type === 'start') return;
      setDialog({ mode: 'edit', id, type: node.type as NodeType, data: node.data });
    },
    [getNode],
  );
  const onNodeDoubleClick: NodeMouseHandler<EditorNode> = useCallback((_event, node) => openEdit(node.id), [openEdit]);

  const context: FlowEditorContextValue = useMemo(() => {
    const byNode = new Map<string, FlowIssue[]>();
    for (const issue of issues) if (issue.nodeId) byNode.set(issue.nodeId, [...(byNode.get(issue.nodeId) ?? []), issue]);
    return {
      issues: byNode,
      stats: published !== null && stats.data ? stats.data.nodes : null,
      onEdit: openEdit,
      onDuplicate: (id) => setNodes((list) => duplicateNode(list, id).nodes),
      onDelete: (id) => {
        const gone = new Set([id]);
        setNodes((list) => deleteElements(list, [], gone, new Set()).nodes);
        setEdges((list) => deleteElements([], list, gone, new Set()).edges);
      },
    };
    // Node actions use functional updates: dragging a node does not re-render every node.
  }, [issues, published, stats.data, openEdit, setNodes, setEdges]);

  const add = (type: NodeType, data: NodeData) => {
    const next = addNode(nodes, edges, type, data);
    setNodes(next.nodes);
    setEdges(next.edges);
  };

  const onDialogSubmit = (data: NodeData, handles?: Record<string, string | null>) => {
    if (!dialog) return;
    if (dialog.mode === 'create') add(dialog.type, data);
    else {
      const { id } = dialog;
      setNodes((list) => list.map((n) => (n.id === id ? { ...n, data } : n)));
      if (handles) setEdges((list) => remapHandles(list, id, handles));
      // The node changed: its earlier issues are for the next save to confirm.
      setIssues((list) => list.filter((issue) => issue.nodeId !== id));
    }
    setDialog(null);
  };

  const onSave = async (): Promise<boolean> => {
    try {
      const result = await save.mutateAsync(fromEditor(nodes, edges));
      setIssues(result.issues);
      toast.success(t('flows.editor.saved'));
      if (result.issues.length > 0) toast.warning(t('flows.editor.savedWithIssues', { count: result.issues.length }));
      return true;
    } catch (error) {
      toastFlowError(error, t);
      return false;
    }
  };

  const onPublish = async () => {
    if (!(await onSave())) return;
    try {
      const result = await publish.mutateAsync();
      setPublished(result.version);
      setIssues([]);
      toast.success(t('flows.editor.published', { version: result.version }));
    } catch (error) {
      const found = issuesFrom(error);
      if (found) {
        setIssues(found);
        toast.error(t('flows.editor.publishInvalid'));
      } else toastFlowError(error, t);
    }
  };

  const onRestore = (version: number) => {
    setVersionsAnchor(null);
    restore.mutate(version, { onSuccess: () => toast.success(t('flows.editor.restored', { version })), onError: (error) => toastFlowError(error, t) });
  };

  const current: Flow = useMemo(() => ({ ...flow, flow: fromEditor(nodes, edges) }), [flow, nodes, edges]);
  const general = issues.filter((issue) => !issue.nodeId);

  return (
    <Stack spacing={1} sx={{ height: 'calc(100vh - 120px)', minHeight: 400 }} data-testid="flow-editor">
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={1} sx={{ alignItems: { md: 'center' }, justifyContent: 'space-between' }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Button startIcon={<ArrowBackIcon />} onClick={() => void navigate('/flowbuilders')} data-testid="flow-editor-back">
            {t('flows.editor.back')}
          </Button>
          <Typography variant="h5" component="h1">
            {t('flows.editor.title')}
          </Typography>
          <Typography variant="subtitle1" color="text.secondary" data-testid="flow-editor-name">
            {flow.name}
          </Typography>
          <Chip size="small" label={published !== null ? t('flows.editor.live', { version: published }) : t('flows.editor.notPublished')} data-testid="flow-editor-version" />
        </Stack>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <SimulationPanel flow={current} />
          <Button startIcon={<HistoryIcon />} onClick={(event) => setVersionsAnchor(event.currentTarget)} data-testid="flow-editor-versions">
            {t('flows.editor.versions')}
          </Button>
          <Button variant="outlined" startIcon={<PublishIcon />} onClick={() => void onPublish()} disabled={publish.isPending || save.isPending} data-testid="flow-editor-publish">
            {t('flows.editor.publish')}
          </Button>
          <Button variant="contained" startIcon={<SaveIcon />} onClick={() => void onSave()} disabled={save.isPending} data-testid="flow-editor-save">
            {t('flows.editor.save')}
          </Button>
        </Stack>
      </Stack>
      <Alert severity="info" sx={{ py: 0 }}>
        {t('flows.editor.reminder')}
      </Alert>
      {general.length > 0 && (
        <Alert severity="warning" data-testid="flow-editor-issues">
          {general.map((issue, index) => (
            <div key={index}>{t(`flows.issues.${issue.code}` as 'flows.issues.missing_start', { defaultValue: issue.message })}</div>
          ))}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, position: 'relative' }} data-testid="flow-editor-canvas">
        <FlowEditorContext.Provider value={context}>
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            onNodeDoubleClick={onNodeDoubleClick}
            zoomOnDoubleClick={false}
            deleteKeyCode={['Backspace', 'Delete']}
            fitView
          >
            <Background />
            <Controls />
            <MiniMap pannable zoomable />
          </ReactFlow>
        </FlowEditorContext.Provider>
        <SpeedDial ariaLabel={t('flows.editor.addNode')} icon={<SpeedDialIcon />} sx={{ position: 'absolute', top: 16, right: 16 }} direction="down" FabProps={{ size: 'small', 'data-testid': 'flow-editor-add' } as object}>
          {ADDABLE_TYPES.map((type) => {
            const Icon = NODE_ICONS[type];
            return (
              <SpeedDialAction
                key={type}
                icon={<Icon fontSize="small" />}
                slotProps={{ tooltip: { title: t(`flows.types.${type}`) }, fab: { 'data-testid': `flow-editor-add-${type}` } as object }}
                onClick={() => (type === 'start' ? add('start', startData()) : setDialog({ mode: 'create', type }))}
              />
            );
          })}
        </SpeedDial>
      </Paper>
      <Menu anchorEl={versionsAnchor} open={!!versionsAnchor} onClose={() => setVersionsAnchor(null)} data-testid="flow-editor-versions-menu">
        {versions.isPending && (
          <MenuItem disabled>
            <CircularProgress size={16} />
          </MenuItem>
        )}
        {versions.data?.length === 0 && <MenuItem disabled>{t('flows.editor.noVersions')}</MenuItem>}
        {versions.data?.map((version) => (
          <MenuItem key={version.version} onClick={() => onRestore(version.version)} data-testid={`flow-editor-restore-${version.version}`}>
            <ListItemText
              primary={t('flows.editor.version', { version: version.version })}
              secondary={`${formatDateTime(version.publishedAt)}${version.publishedBy ? ` · ${version.publishedBy.name}` : ''} — ${t('flows.editor.restore')}`}
            />
          </MenuItem>
        ))}
      </Menu>
      {dialog && <NodeDialog type={dialog.type} data={dialog.mode === 'edit' ? dialog.data : null} onSubmit={onDialogSubmit} onClose={() => setDialog(null)} />}
    </Stack>
  );
}
