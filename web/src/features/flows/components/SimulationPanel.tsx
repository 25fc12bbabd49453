/**
 * The editor's simulation panel: the designer chats with the flow as a contact would, with no
 * server round trip. Every step runs in the core's interpreter compiled to WebAssembly
 * (`lib/wasm/flowEngine`), the same code the server runs — nothing here decides what a flow does;
 * the panel only shows the effects and feeds the designer's replies and the timers back.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Divider,
  Drawer,
  IconButton,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import CloseIcon from '@mui/icons-material/Close';
import FastForwardIcon from '@mui/icons-material/FastForward';
import SendIcon from '@mui/icons-material/Send';
import { useTranslation } from 'react-i18next';
import type { Flow } from '../types';
import {
  loadFlowEngine,
  type FlowEffect,
  type FlowEngine,
  type FlowGraph,
  type FlowInput,
  type FlowStep,
  type RunState,
} from '../../../lib/wasm/flowEngine';

export interface SimulationPanelProps {
  /** The flow as the editor holds it (graph included). */
  flow: Flow;
  /** Loads the interpreter (tests pass the module read from disk). */
  loadEngine?: () => Promise<FlowEngine>;
}

/** One line of the conversation as the panel shows it. */
type Line = { from: 'contact'; text: string } | { from: 'flow'; effect: FlowEffect };

const emptyGraph: FlowGraph = { nodes: [], connections: [] };

export function SimulationPanel({ flow, loadEngine = loadFlowEngine }: SimulationPanelProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [engine, setEngine] = useState<FlowEngine | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [state, setState] = useState<RunState | null>(null);
  const [reply, setReply] = useState('');
  const [name, setName] = useState('Maria');
  const [number, setNumber] = useState('5511999990000');
  const [seed, setSeed] = useState('1');
  const bottom = useRef<HTMLDivElement | null>(null);

  const graph: FlowGraph = useMemo(() => (flow.flow as FlowGraph | null | undefined) ?? emptyGraph, [flow.flow]);
  const errors = useMemo(
    () => (engine ? engine.validate(graph).filter((issue) => issue.severity === 'error') : []),
    [engine, graph],
  );

  useEffect(() => {
    if (!open || engine) return;
    let cancelled = false;
    loadEngine().then(
      (loaded) => {
        if (!cancelled) setEngine(loaded);
      },
      (error: unknown) => {
        if (!cancelled) setLoadError(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [open, engine, loadEngine]);

  const apply = useCallback((step: FlowStep, input?: string) => {
    setLines((current) => [
      ...current,
      ...(input === undefined ? [] : [{ from: 'contact' as const, text: input }]),
      ...step.effects.map((effect) => ({ from: 'flow' as const, effect })),
    ]);
    setState(step.state);
  }, []);

  const restart = useCallback(() => {
    if (!engine) return;
    setLines([]);
    apply(engine.start(graph, seed.trim() || '0', { name, number }));
  }, [engine, graph, seed, name, number, apply]);

  // A fresh run whenever the panel opens with the interpreter ready.
  const started = useRef(false);
  useEffect(() => {
    if (open && engine && !started.current) {
      started.current = true;
      restart();
    }
    if (!open) started.current = false;
  }, [open, engine, restart]);

  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [lines]);

  const send = (input: FlowInput, shown?: string) => {
    if (!engine || !state) return;
    apply(engine.step(graph, state, input), shown);
  };

  const waiting = state?.waiting;
  const canReply = waiting?.type === 'reply';
  const onReply = () => {
    const text = reply;
    setReply('');
    send({ type: 'message', text }, text);
  };

  return (
    <>
      <Button variant="outlined" startIcon={<PlayArrowIcon />} onClick={() => setOpen(true)} data-testid="flow-simulate">
        {t('flows.simulation.button')}
      </Button>
      {/* A modal panel: above the app bar (which sits above the side menu's drawer level), like a dialog. */}
      <Drawer anchor="right" open={open} onClose={() => setOpen(false)} sx={{ zIndex: (theme) => theme.zIndex.modal }}>
        <Stack spacing={1} sx={{ width: { xs: '100vw', sm: 420 }, p: 2, height: '100%' }} data-testid="flow-simulation">
          <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
            <Typography variant="h6" data-testid="flow-simulation-title">{t('flows.simulation.title')}</Typography>
            <Stack direction="row" spacing={1}>
              <Button size="small" startIcon={<RestartAltIcon />} onClick={restart} disabled={!engine} data-testid="flow-simulation-restart">
                {t('flows.simulation.restart')}
              </Button>
              <IconButton aria-label={t('flows.simulation.close')} onClick={() => setOpen(false)}>
                <CloseIcon />
              </IconButton>
            </Stack>
          </Stack>
          <Stack direction="row" spacing={1}>
            <TextField size="small" label={t('flows.simulation.contactName')} value={name} onChange={(e) => setName(e.target.value)} sx={{ flex: 1, minWidth: 0 }} />
            <TextField size="small" label={t('flows.simulation.contactNumber')} value={number} onChange={(e) => setNumber(e.target.value)} sx={{ flex: 1, minWidth: 0 }} />
            <TextField size="small" label={t('flows.simulation.seed')} value={seed} onChange={(e) => setSeed(e.target.value.replace(/\D/g, ''))} sx={{ width: 100, flexShrink: 0 }} />
          </Stack>
          {loadError && <Alert severity="error">{t('flows.simulation.failed', { error: loadError })}</Alert>}
          {!engine && !loadError && (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <CircularProgress size={18} />
              <Typography variant="body2">{t('flows.simulation.loading')}</Typography>
            </Stack>
          )}
          {errors.length > 0 && (
            <Alert severity="warning" data-testid="flow-simulation-issues">
              {t('flows.simulation.issues', { count: errors.length })}
            </Alert>
          )}
          <Box sx={{ flex: 1, overflowY: 'auto', bgcolor: 'action.hover', borderRadius: 1, p: 1 }} data-testid="flow-simulation-transcript">
            {lines.map((line, index) => (
              <TranscriptLine
                key={index}
                line={line}
                current={waiting?.type === 'timer' && line.from === 'flow' && line.effect.type === 'wait' && line.effect.timer === waiting.timer}
                onFastForward={(timer) => send({ type: 'timerFired', timer })}
              />
            ))}
            <div ref={bottom} />
          </Box>
          <Stack direction="row" spacing={1}>
            <TextField
              size="small"
              fullWidth
              placeholder={t('flows.simulation.placeholder')}
              value={reply}
              disabled={!canReply}
              onChange={(e) => setReply(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && canReply) onReply();
              }}
              slotProps={{ htmlInput: { 'data-testid': 'flow-simulation-input' } }}
            />
            <IconButton aria-label={t('flows.simulation.send')} onClick={onReply} disabled={!canReply} data-testid="flow-simulation-send">
              <SendIcon />
            </IconButton>
          </Stack>
          <Divider />
          <Typography variant="subtitle2">{t('flows.simulation.variables')}</Typography>
          <Box data-testid="flow-simulation-vars">
            {state && Object.keys(state.vars).length > 0 ? (
              Object.entries(state.vars).map(([key, value]) => (
                <Typography key={key} variant="body2">
                  <b>{key}</b>: {value}
                </Typography>
              ))
            ) : (
              <Typography variant="body2" color="text.secondary">
                {t('flows.simulation.noVariables')}
              </Typography>
            )}
          </Box>
        </Stack>
      </Drawer>
    </>
  );
}

function TranscriptLine({ line, current, onFastForward }: { line: Line; current: boolean; onFastForward: (timer: number) => void }) {
  const { t } = useTranslation();
  if (line.from === 'contact') {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', my: 0.5 }}>
        <Box sx={{ bgcolor: 'primary.main', color: 'primary.contrastText', px: 1.5, py: 0.5, borderRadius: 2, maxWidth: '80%' }} data-testid="sim-contact">
          {line.text}
        </Box>
      </Box>
    );
  }
  const effect = line.effect;
  const reason = (key: string) => t(`flows.simulation.reasons.${key}`, { defaultValue: key });
  const note = (text: string, testId = 'sim-note') => (
    <Typography variant="caption" color="text.secondary" component="div" sx={{ my: 0.25 }} data-testid={testId}>
      {text}
    </Typography>
  );
  switch (effect.type) {
    case 'sendText':
      return (
        <Box sx={{ my: 0.5 }}>
          <Box sx={{ bgcolor: 'background.paper', px: 1.5, py: 0.5, borderRadius: 2, maxWidth: '85%', whiteSpace: 'pre-wrap', display: 'inline-block' }} data-testid="sim-bot">
            {effect.text}
          </Box>
        </Box>
      );
    case 'sendMedia':
      return (
        <Box sx={{ my: 0.5 }}>
          <Chip size="small" label={t('flows.simulation.media', { kind: effect.kind, name: effect.name ?? effect.url })} data-testid="sim-bot-media" />
        </Box>
      );
    case 'enterNode':
      return note(t('flows.simulation.entered', { kind: effect.kind }), 'sim-node');
    case 'wait':
      return (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', my: 0.25 }}>
          <Typography variant="caption" color="text.secondary">
            {t('flows.simulation.waiting', { seconds: effect.seconds })}
          </Typography>
          {current && (
            <Button size="small" startIcon={<FastForwardIcon />} onClick={() => onFastForward(effect.timer)} data-testid="flow-simulation-forward">
              {t('flows.simulation.fastForward', { seconds: effect.seconds })}
            </Button>
          )}
        </Stack>
      );
    case 'ask':
      return note(t('flows.simulation.asked', { variable: effect.variable ? ` (${effect.variable})` : '' }));
    case 'invalidReply':
      return note(t('flows.simulation.invalid', { attempts: effect.attempts }));
    case 'setVariable':
      return note(t('flows.simulation.setVariable', { key: effect.key, value: effect.value }));
    case 'moveToQueue':
      return note(t('flows.simulation.movedToQueue', { queue: effect.queueName ?? `#${effect.queueId}` }), 'sim-queue');
    case 'startTypebot':
      return note(t('flows.simulation.handedOff', { name: 'Typebot' }));
    case 'startOpenAi':
      return note(t('flows.simulation.handedOff', { name: effect.name || 'OpenAI' }));
    case 'ignored':
      return note(t('flows.simulation.ignored', { reason: reason(effect.reason) }));
    case 'end':
      return note(t('flows.simulation.ended', { reason: reason(effect.reason) }), 'sim-end');
  }
}
