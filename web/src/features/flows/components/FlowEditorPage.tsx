/**
 * The flow editor (spec 3 §2.13, route /flowbuilder/{id}) on React Flow: a new flow opens with its
 * start node, the add-node menu places each node in free space at the view's centre, double-click
 * edits, Backspace/Delete removes, save stores the draft and shows the core's issues on the nodes,
 * publish makes the draft live, versions can be restored, and per-node drop-off is shown once a
 * version is published. Leaving with unsaved edits asks first (in-app navigation through the
 * router's blocker, closing or reloading the tab through `beforeunload`). Split into its own
 * chunk with React Flow.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
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
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Fab,
  IconButton,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Paper,
  Stack,
  Tooltip,
  Typography,
  useTheme,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import HistoryIcon from '@mui/icons-material/History';
import PublishIcon from '@mui/icons-material/Publish';
import SaveIcon from '@mui/icons-material/Save';
import { useBlocker, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../../lib/api';
import { formatDateTime } from '../utils/format';
import { toast } from '../../../lib/toast';
import { toastFlowError } from '../utils/errors';
import { useFlow, useFlowStats, useFlowVersions, usePublishFlow, useRestoreFlowVersion, useSaveFlowGraph } from '../api/flows';
import { flowIssuesSchema, type Flow, type FlowIssue, type NodeKind, type NodeType } from '../types';
import {
  addNode,
  deleteElements,
  duplicateNode,
  fromEditor,
  graphSignature,
  kindOf,
  NEW_NODE_SIZE,
  remapHandles,
  toEditor,
  withKind,
  withStartNode,
  type EditorEdge,
  type EditorNode,
  type Point,
} from '../utils/graph';
import { ADDABLE_TYPES, startData } from '../utils/nodes';
import { NODE_ICONS } from './nodes/node-icons';
import { nodeTypes } from './nodes/node-types';
import { FlowEditorContext, type FlowEditorContextValue } from './nodes/editor-context';
import { NodeDialog, type DialogTarget } from './NodeDialog';
import { SimulationPanel } from './SimulationPanel';

/** The flow is fetched after this delay (spec 3 §9). */
/** The leave dialog's actions: a row from 600 px, a column (primary on top) below. */
const leaveActionsSx = {
  flexDirection: { xs: 'column-reverse', sm: 'row' },
  alignItems: { xs: 'stretch', sm: 'center' },
  gap: 1,
  '& > :not(style) ~ :not(style)': { ml: { xs: 0, sm: 1 } },
} as const;

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

type DialogState = { mode: 'create'; target: DialogTarget } | { mode: 'edit'; id: string; target: DialogTarget };

function issuesFrom(error: unknown): FlowIssue[] | null {
  if (!isApiError(error) || !error.body || typeof error.body !== 'object') return null;
  const parsed = flowIssuesSchema.safeParse((error.body as { issues?: unknown }).issues);
  return parsed.success ? parsed.data : null;
}

function FlowCanvas({ flow }: { flow: Flow }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const navigate = useNavigate();
  // A flow never saved opens with its start node placed; it is saved with the next save.
  const initial = useMemo(() => toEditor(withStartNode(flow.flow)), [flow.flow]);
  const [nodes, setNodes, onNodesChange] = useNodesState<EditorNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<EditorEdge>(initial.edges);
  /** The graph as last saved (or opened): anything else is an unsaved edit. */
  const [savedSignature, setSavedSignature] = useState(() => graphSignature(initial.nodes, initial.edges));
  const [addAnchor, setAddAnchor] = useState<HTMLElement | null>(null);
  const canvas = useRef<HTMLDivElement | null>(null);
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

  const { getNode, screenToFlowPosition } = useReactFlow<EditorNode, EditorEdge>();
  const openEdit = useCallback(
    (id: string) => {
      const node = getNode(id);
      if (!node || node.type === 'start') return;
      setDialog({ mode: 'edit', id, target: kindOf(node) });
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

  /** Where a new node should go: centred in the visible canvas (none before the canvas is laid out). */
  const viewCentre = (): Point | undefined => {
    const box = canvas.current?.getBoundingClientRect();
    if (!box || box.width === 0 || box.height === 0) return undefined;
    const centre = screenToFlowPosition({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
    return { x: Math.round(centre.x - NEW_NODE_SIZE.width / 2), y: Math.round(centre.y - NEW_NODE_SIZE.height / 2) };
  };

  const add = (kind: NodeKind) => {
    const next = addNode(nodes, edges, kind, { near: viewCentre() });
    setNodes(next.nodes);
    setEdges(next.edges);
  };

  const onAddType = (type: NodeType) => {
    setAddAnchor(null);
    if (type === 'start') add({ type: 'start', data: startData() });
    else setDialog({ mode: 'create', target: { type, data: null } });
  };

  const onDialogSubmit = (kind: NodeKind, handles?: Record<string, string | null>) => {
    if (!dialog) return;
    if (dialog.mode === 'create') add(kind);
    else {
      const { id } = dialog;
      setNodes((list) => list.map((n) => (n.id === id ? withKind(n, kind) : n)));
      if (handles) setEdges((list) => remapHandles(list, id, handles));
      // The node changed: its earlier issues are for the next save to confirm.
      setIssues((list) => list.filter((issue) => issue.nodeId !== id));
    }
    setDialog(null);
  };

  const onSave = async (): Promise<boolean> => {
    try {
      const signature = graphSignature(nodes, edges);
      const result = await save.mutateAsync(fromEditor(nodes, edges));
      setSavedSignature(signature);
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
  const dirty = useMemo(() => graphSignature(nodes, edges) !== savedSignature, [nodes, edges, savedSignature]);

  // Unsaved edits hold every in-app navigation away from the editor until the user answers…
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);
  // …and closing or reloading the tab makes the browser ask (its own words: it shows no page text).
  useEffect(() => {
    if (!dirty) return;
    const hold = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', hold);
    return () => window.removeEventListener('beforeunload', hold);
  }, [dirty]);
  const saveAndLeave = async () => {
    if (await onSave()) blocker.proceed?.();
    else blocker.reset?.();
  };

  return (
    <Stack spacing={1} sx={{ height: 'calc(100vh - 120px)', minHeight: 400, containerType: 'inline-size' }} data-testid="flow-editor">
      {/* One line at any desktop width: the name gives way (ellipsis); below 600 px the actions show their icons only and may wrap. */}
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', flexWrap: 'nowrap', minWidth: 0, [theme.containerQueries.down(600)]: { flexWrap: 'wrap', rowGap: 1 } }}
        data-testid="flow-editor-toolbar"
      >
        <Tooltip title={t('flows.editor.back')}>
          <IconButton onClick={() => void navigate('/flowbuilders')} aria-label={t('flows.editor.back')} data-testid="flow-editor-back">
            <ArrowBackIcon />
          </IconButton>
        </Tooltip>
        <Typography variant="h6" component="h1" noWrap sx={{ flexShrink: 0, [theme.containerQueries.down(900)]: { display: 'none' } }}>
          {t('flows.editor.title')}
        </Typography>
        <Tooltip title={flow.name}>
          <Typography variant="subtitle1" color="text.secondary" noWrap sx={{ minWidth: 0, flexShrink: 1 }} data-testid="flow-editor-name">
            {flow.name}
          </Typography>
        </Tooltip>
        <Chip
          size="small"
          sx={{ flexShrink: 0 }}
          label={published !== null ? t('flows.editor.live', { version: published }) : t('flows.editor.notPublished')}
          data-testid="flow-editor-version"
        />
        <Box sx={{ flex: 1 }} />
        <Stack
          direction="row"
          spacing={1}
          sx={{
            alignItems: 'center',
            flexShrink: 0,
            '& .MuiButton-root': { whiteSpace: 'nowrap' },
            // The label stays in the page (the button's accessible name) at size 0.
            [theme.containerQueries.down(600)]: { '& .MuiButton-root': { minWidth: 0, px: 1, fontSize: 0 }, '& .MuiButton-startIcon': { m: 0 } },
          }}
        >
          <SimulationPanel flow={current} />
          <Tooltip title={t('flows.editor.versions')}>
            <IconButton onClick={(event) => setVersionsAnchor(event.currentTarget)} aria-label={t('flows.editor.versions')} data-testid="flow-editor-versions">
              <HistoryIcon />
            </IconButton>
          </Tooltip>
          <Button variant="outlined" startIcon={<PublishIcon />} onClick={() => void onPublish()} disabled={publish.isPending || save.isPending} data-testid="flow-editor-publish">
            {t('flows.editor.publish')}
          </Button>
          <Button variant="contained" startIcon={<SaveIcon />} onClick={() => void onSave()} disabled={save.isPending} data-testid="flow-editor-save" data-dirty={dirty ? 'true' : 'false'}>
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
      <Paper
        ref={canvas}
        variant="outlined"
        // On a phone-sized editor the minimap would cover half the canvas.
        sx={{ flex: 1, minHeight: 0, position: 'relative', overflow: 'hidden', [theme.containerQueries.down(600)]: { '& .react-flow__minimap': { display: 'none' } } }}
        data-testid="flow-editor-canvas"
      >
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
            // React Flow's own parts (zoom controls, minimap, background, edges) follow the app's theme.
            colorMode={theme.palette.mode}
            fitView
            // A flow of one or two nodes is not blown up to fill the canvas.
            fitViewOptions={{ maxZoom: 1 }}
          >
            <Background />
            <Controls />
            <MiniMap pannable zoomable />
          </ReactFlow>
        </FlowEditorContext.Provider>
        <Tooltip title={t('flows.editor.addNode')} placement="left">
          <Fab
            size="small"
            color="primary"
            sx={{ position: 'absolute', top: 16, right: 16 }}
            onClick={(event) => setAddAnchor(event.currentTarget)}
            aria-label={t('flows.editor.addNode')}
            aria-haspopup="menu"
            aria-expanded={addAnchor ? 'true' : 'false'}
            data-testid="flow-editor-add"
          >
            <AddIcon />
          </Fab>
        </Tooltip>
      </Paper>
      {/* A menu, not a speed dial: it keeps inside the window (moving up, scrolling within) at any height. */}
      <Menu
        anchorEl={addAnchor}
        open={!!addAnchor}
        onClose={() => setAddAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        data-testid="flow-editor-node-menu"
      >
        {ADDABLE_TYPES.map((type) => {
          const Icon = NODE_ICONS[type];
          return (
            <MenuItem key={type} dense onClick={() => onAddType(type)} data-testid={`flow-editor-add-${type}`}>
              <ListItemIcon>
                <Icon fontSize="small" />
              </ListItemIcon>
              <ListItemText>{t(`flows.types.${type}`)}</ListItemText>
            </MenuItem>
          );
        })}
      </Menu>
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
      <Dialog open={blocker.state === 'blocked'} onClose={() => blocker.reset?.()} data-testid="flow-editor-leave-dialog">
        <DialogTitle>{t('flows.editor.leave.title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{t('flows.editor.leave.text')}</DialogContentText>
        </DialogContent>
        {/* On a phone the three answers stack, the default one on top, instead of wrapping mid-label. */}
        <DialogActions sx={leaveActionsSx}>
          <Button onClick={() => blocker.reset?.()} data-testid="flow-editor-leave-stay">
            {t('flows.editor.leave.stay')}
          </Button>
          <Button color="error" onClick={() => blocker.proceed?.()} data-testid="flow-editor-leave-discard">
            {t('flows.editor.leave.discard')}
          </Button>
          <Button variant="contained" onClick={() => void saveAndLeave()} disabled={save.isPending} data-testid="flow-editor-leave-save">
            {t('flows.editor.leave.save')}
          </Button>
        </DialogActions>
      </Dialog>
      {dialog && <NodeDialog target={dialog.target} onSubmit={onDialogSubmit} onClose={() => setDialog(null)} />}
    </Stack>
  );
}
