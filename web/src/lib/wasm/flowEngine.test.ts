/**
 * The real WASM build of the core's interpreter (not a mock): the sample flow run with the
 * sample case gives exactly the transcript `chatflow flow simulate --json` printed for the same
 * flow and inputs (`cargo xtask test` writes it to src/wasm-pkg/cli-transcript.json after
 * building the module; `cargo xtask wasm` builds the module alone).
 */
/// <reference types="node" />
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowEngineError, loadFlowEngineSync, type FlowGraph } from './flowEngine';

// Vitest runs in web/; the repository root is its parent.
const pkg = resolve(process.cwd(), 'src/wasm-pkg');
const flows = resolve(process.cwd(), '../examples/flow-run/flows');

const engine = loadFlowEngineSync(readFileSync(resolve(pkg, 'chatflow_wasm_bg.wasm')));
const flow = JSON.parse(readFileSync(resolve(flows, 'welcome.json'), 'utf8')) as FlowGraph;
const sample = JSON.parse(readFileSync(resolve(flows, 'welcome.case.json'), 'utf8')) as {
  seed: string;
  vars: Record<string, string>;
  inputs: string[];
};

describe('the flow interpreter compiled to WASM', () => {
  it('prints the same transcript as the CLI for the same flow and inputs', () => {
    const cliFile = resolve(pkg, 'cli-transcript.json');
    expect(existsSync(cliFile), 'run `cargo xtask test` (it writes the CLI transcript)').toBe(true);
    const cli: unknown = JSON.parse(readFileSync(cliFile, 'utf8'));
    const wasm = engine.simulate(flow, sample.seed, sample.vars, sample.inputs);
    expect(wasm).toEqual(cli);
    // The run really went somewhere: it greeted Maria and ended in a queue.
    const effects = wasm.entries.flatMap((entry) => entry.effects);
    expect(effects.some((e) => e.type === 'sendText' && e.text.includes('Maria'))).toBe(true);
    expect(effects.some((e) => e.type === 'moveToQueue')).toBe(true);
  });

  it('steps one input at a time like the whole-run simulation', () => {
    let step = engine.start(flow, sample.seed, sample.vars);
    const effects = [...step.effects];
    const inputs = [...sample.inputs];
    for (let guard = 0; guard < 50 && !step.state.finished; guard += 1) {
      const waiting = step.state.waiting;
      if (waiting.type === 'timer') step = engine.step(flow, step.state, { type: 'timerFired', timer: waiting.timer });
      else if (waiting.type === 'reply' && inputs.length > 0) step = engine.step(flow, step.state, { type: 'message', text: inputs.shift() ?? '' });
      else break;
      effects.push(...step.effects);
    }
    const whole = engine.simulate(flow, sample.seed, sample.vars, sample.inputs);
    expect(effects).toEqual(whole.entries.flatMap((entry) => entry.effects));
    expect(step.state).toEqual(whole.state);
  });

  it('validates: the sample is publishable, an empty graph is not', () => {
    expect(engine.validate(flow).filter((issue) => issue.severity === 'error')).toEqual([]);
    const issues = engine.validate({ nodes: [], connections: [] });
    expect(issues.length).toBeGreaterThan(0);
  });

  it('refuses unreadable input with a clear error', () => {
    expect(() => engine.start(flow, 'not-a-number', {})).toThrow(FlowEngineError);
    expect(() => engine.step(flow, engine.start(flow, '1', {}).state, { type: 'bogus' } as never)).toThrow(/input/);
  });
});
