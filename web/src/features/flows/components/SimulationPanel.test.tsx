/**
 * The simulation panel with the real interpreter: the WASM module built from the core (read from
 * disk here, fetched by the browser in the app) runs the sample flow while the designer replies.
 */
/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { SimulationPanel } from './SimulationPanel';
import { loadFlowEngineSync, type FlowEngine } from '../../../lib/wasm/flowEngine';
import type { Flow } from '../types';

// Vitest runs in web/; the repository root is its parent.
const bytes = readFileSync(resolve(process.cwd(), 'src/wasm-pkg/chatflow_wasm_bg.wasm'));
const graph = JSON.parse(readFileSync(resolve(process.cwd(), '../examples/flow-run/flows/welcome.json'), 'utf8')) as Flow['flow'];
const flow = { id: 9, name: 'Boas-vindas', active: true, flow: graph } as Flow;
const loadEngine = (): Promise<FlowEngine> => Promise.resolve(loadFlowEngineSync(bytes));

function texts(testId: string): string[] {
  return screen.queryAllByTestId(testId).map((element) => element.textContent ?? '');
}

describe('SimulationPanel', () => {
  it('walks the flow in the browser: greeting, menu, question, interval and the queue it ends in', async () => {
    render(<SimulationPanel flow={flow} loadEngine={loadEngine} />);
    fireEvent.click(screen.getByTestId('flow-simulate'));
    await waitFor(() => expect(texts('sim-bot').some((text) => text.includes('Maria'))).toBe(true));
    expect(texts('sim-bot').join('\n')).toContain('[1]');

    const input = screen.getByTestId('flow-simulation-input');
    fireEvent.change(input, { target: { value: '1' } });
    fireEvent.click(screen.getByTestId('flow-simulation-send'));
    await waitFor(() => expect(texts('sim-contact')).toEqual(['1']));

    // Answer the question; its answer shows among the variables.
    fireEvent.change(input, { target: { value: 'maria@exemplo.com.br' } });
    fireEvent.click(screen.getByTestId('flow-simulation-send'));
    await waitFor(() => expect(screen.getByTestId('flow-simulation-vars')).toHaveTextContent('maria@exemplo.com.br'));

    // The interval waits until the designer skips it; then the run ends in a queue.
    await waitFor(() => expect(screen.getByTestId('flow-simulation-forward')).toBeInTheDocument());
    expect(screen.queryAllByTestId('sim-queue')).toHaveLength(0);
    fireEvent.click(screen.getByTestId('flow-simulation-forward'));
    await waitFor(() => expect(screen.getAllByTestId('sim-queue')).toHaveLength(1));
    expect(screen.getByTestId('sim-queue')).toHaveTextContent('Vendas');
    expect(screen.getByTestId('sim-end')).toBeInTheDocument();
    expect(screen.getByTestId('flow-simulation-input')).toBeDisabled();

    // Restart begins a fresh run with the same greeting.
    fireEvent.click(screen.getByTestId('flow-simulation-restart'));
    await waitFor(() => expect(texts('sim-contact')).toEqual([]));
    expect(within(screen.getByTestId('flow-simulation-transcript')).getAllByTestId('sim-bot')[0]).toHaveTextContent('Maria');
  });

  it('warns when the flow has errors and still runs what it can', async () => {
    const broken = { ...flow, flow: { nodes: [], connections: [] } } as Flow;
    render(<SimulationPanel flow={broken} loadEngine={loadEngine} />);
    fireEvent.click(screen.getByTestId('flow-simulate'));
    await waitFor(() => expect(screen.getByTestId('flow-simulation-issues')).toBeInTheDocument());
    await waitFor(() => expect(screen.getByTestId('sim-end')).toBeInTheDocument());
  });

  it('says so when the interpreter cannot load', async () => {
    render(<SimulationPanel flow={flow} loadEngine={() => Promise.reject(new Error('offline'))} />);
    fireEvent.click(screen.getByTestId('flow-simulate'));
    await waitFor(() => expect(screen.getByText(/offline/)).toBeInTheDocument());
  });
});
