// Times the flow interpreter compiled to WASM under Node (`cargo xtask bench` runs this after
// `cargo xtask wasm`): whole simulated runs of the sample flow for a given number of seconds.
// Prints one JSON line: {runs, steps, seconds}.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { initSync, simulateFlow } from '../src/wasm-pkg/chatflow_wasm.js';

const [flowFile, caseFile, secondsArg] = process.argv.slice(2);
initSync({ module: readFileSync(resolve(import.meta.dirname, '../src/wasm-pkg/chatflow_wasm_bg.wasm')) });
const flow = readFileSync(flowFile, 'utf8');
const sample = JSON.parse(readFileSync(caseFile, 'utf8'));
const vars = JSON.stringify(sample.vars);
const inputs = JSON.stringify(sample.inputs);
const seconds = Number(secondsArg ?? '2');

// Warm up, then count.
for (let i = 0; i < 200; i += 1) simulateFlow(flow, sample.seed, vars, inputs);
let runs = 0;
let steps = 0;
const started = process.hrtime.bigint();
const budget = BigInt(Math.round(seconds * 1e9));
while (process.hrtime.bigint() - started < budget) {
  const transcript = JSON.parse(simulateFlow(flow, sample.seed, vars, inputs));
  runs += 1;
  steps += transcript.entries.length;
}
const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
console.log(JSON.stringify({ runs, steps, seconds: elapsed }));
