/**
 * The core's flow interpreter compiled to WebAssembly (crate `web/wasm`, built by
 * `cargo xtask wasm` into `src/wasm-pkg`). The simulation panel runs flows through it, so the
 * browser runs exactly the interpreter the server runs; nothing here interprets a flow.
 *
 * Every call takes and returns the JSON shapes of `chatflow_core::flow` (see docs/flows.md).
 */
import init, { initSync, simulateFlow, startFlow, stepFlow, validateFlow } from '../../wasm-pkg/chatflow_wasm.js';

/** The graph the editor saves. */
export interface FlowGraph {
  nodes: unknown[];
  connections: unknown[];
}

export type MediaKind = 'image' | 'audio' | 'video';

/** What the host must do, in order (`chatflow_core::flow::Effect`). */
export type FlowEffect =
  | { type: 'enterNode'; nodeId: string; kind: string }
  | { type: 'sendText'; text: string }
  | { type: 'sendMedia'; kind: MediaKind; url: string; name?: string | null; record: boolean }
  | { type: 'wait'; seconds: number; timer: number }
  | { type: 'ask'; variable?: string | null }
  | { type: 'invalidReply'; attempts: number }
  | { type: 'setVariable'; key: string; value: string }
  | { type: 'moveToQueue'; queueId: number; queueName?: string | null }
  | { type: 'startTypebot'; nodeId: string; integration: unknown }
  | { type: 'startOpenAi'; nodeId: string; name: string; queueId?: number | null }
  | { type: 'ignored'; reason: string }
  | { type: 'end'; reason: string };

/** What a run waits for. */
export type FlowWaiting =
  | { type: 'nothing' }
  | { type: 'reply'; kind: 'menu' | 'question'; variable?: string | null }
  | { type: 'timer'; timer: number; seconds: number };

/** The state of a run, kept between steps (`chatflow_core::flow::RunState`). */
export interface RunState {
  node: string | null;
  waiting: FlowWaiting;
  finished: string | null;
  vars: Record<string, string>;
  seed: string;
  visited: string[];
  steps: number;
  [key: string]: unknown;
}

export interface FlowStep {
  state: RunState;
  effects: FlowEffect[];
}

export type FlowInput = { type: 'message'; text: string } | { type: 'timerFired'; timer?: number | null };

/** A validation issue (`chatflow_core::flow::FlowIssue`). */
export interface FlowEngineIssue {
  nodeId: string | null;
  code: string;
  severity: 'error' | 'warning';
  messagePt: string;
}

export interface TranscriptEntry {
  input: { type: string; [key: string]: unknown };
  effects: FlowEffect[];
}

export interface Transcript {
  entries: TranscriptEntry[];
  state: RunState;
  unusedInputs: string[];
}

/** The interpreter's calls, once the module is loaded. */
export interface FlowEngine {
  validate(flow: FlowGraph): FlowEngineIssue[];
  start(flow: FlowGraph, seed: string, vars: Record<string, string>): FlowStep;
  step(flow: FlowGraph, state: RunState, input: FlowInput): FlowStep;
  simulate(flow: FlowGraph, seed: string, vars: Record<string, string>, inputs: string[]): Transcript;
}

/** A call the module refused (unreadable flow, state or input). */
export class FlowEngineError extends Error {}

function read<T>(json: string): T {
  const value = JSON.parse(json) as T | { error: string };
  if (value && typeof value === 'object' && 'error' in value && typeof value.error === 'string') {
    throw new FlowEngineError(value.error);
  }
  return value as T;
}

const engine: FlowEngine = {
  validate: (flow) => read<{ issues: FlowEngineIssue[] }>(validateFlow(JSON.stringify(flow))).issues,
  start: (flow, seed, vars) => read<FlowStep>(startFlow(JSON.stringify(flow), seed, JSON.stringify(vars))),
  step: (flow, state, input) => read<FlowStep>(stepFlow(JSON.stringify(flow), JSON.stringify(state), JSON.stringify(input))),
  simulate: (flow, seed, vars, inputs) =>
    read<Transcript>(simulateFlow(JSON.stringify(flow), seed, JSON.stringify(vars), JSON.stringify(inputs))),
};

let loading: Promise<FlowEngine> | null = null;

/** Loads the module once (fetching the .wasm file next to it) and returns the engine. */
export function loadFlowEngine(): Promise<FlowEngine> {
  loading ??= init().then(() => engine);
  return loading;
}

/** Loads the module from bytes already at hand (tests read the file from disk). */
export function loadFlowEngineSync(bytes: BufferSource): FlowEngine {
  initSync({ module: bytes });
  return engine;
}
