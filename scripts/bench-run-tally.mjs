// What keeping a framework run's tally costs a tool call (sessions54): a RunGuard on a SQLite file
// (WAL, synchronous=NORMAL, as `openLoopGuardDatabase` opens it) judges runs of CALLS tool calls
// that make progress, the run's end told, in three variants taking turns in the same process:
//   before  the store without `recordRunTally` (what the guard did before: no tally);
//   after   the SQLite store (the tally written at the first call, then at most once per 2 s, and at the end);
//   every   a tally written at every call (the bound's alternative), for scale.
// Prints µs per tool call (best and median round) and the ratio to `before`, and one write's cost.
// Run: npx tsc -b && node scripts/bench-run-tally.mjs
// Env: LOOPGUARD_BENCH_ROUNDS (default 15), LOOPGUARD_BENCH_CALLS (default 200).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunGuard } from '../packages/agents/dist/shared/RunGuard.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const ROUNDS = Number(process.env.LOOPGUARD_BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.LOOPGUARD_BENCH_CALLS ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-tally-'));
const database = openLoopGuardDatabase(join(dir, 'state.db'));
const sqlite = database.stateMachine;
/** The store as the guard saw it before: entries only. */
const entriesOnly = { addContextEntry: (input) => sqlite.addContextEntry(input) };
/** A store that the guard would write at every call (the tally is written at each change). */
const VARIANTS = {
  before: () => ({ stateMachine: entriesOnly, perCall: false }),
  after: () => ({ stateMachine: sqlite, perCall: false }),
  every: () => ({ stateMachine: sqlite, perCall: true }),
};

let runs = 0;
function oneRun(variant) {
  const { stateMachine, perCall } = VARIANTS[variant]();
  runs += 1;
  const runId = `${variant}-${runs}`;
  const run = new RunGuard({ stateMachine, taskId: runId, runId, projectDir: dir }, 'ai-sdk');
  const start = process.hrtime.bigint();
  for (let call = 0; call < CALLS; call++) {
    run.observe({ type: 'action', tool: 'writeFile', input: { path: `src/f${call}.ts`, text: `v${call}` } });
    run.observe({
      type: 'observation',
      tool: 'writeFile',
      output: `wrote src/f${call}.ts (${call * 7919} bytes)`,
    });
    if (perCall) run.end();
  }
  run.end();
  return Number(process.hrtime.bigint() - start) / 1000 / CALLS;
}

const times = { before: [], after: [], every: [] };
const order = Object.keys(VARIANTS);
for (let round = -3; round < ROUNDS; round++) {
  const turn = round < 0 ? order : [...order.slice(round % 3), ...order.slice(0, round % 3)];
  for (const variant of turn) {
    const us = oneRun(variant);
    if (round >= 0) times[variant].push(us);
  }
}
// one write alone
const tally = {
  adapter: 'ai-sdk',
  runId: 'w',
  projectDir: dir,
  toolCalls: 0,
  tokens: null,
  costUsd: null,
  unpricedTokens: null,
  budgetUsd: null,
  budgetTokens: null,
  ended: false,
};
const writes = [];
for (let i = 0; i < 2000; i++) {
  const start = process.hrtime.bigint();
  sqlite.recordRunTally({ ...tally, at: Date.now(), toolCalls: i });
  writes.push(Number(process.hrtime.bigint() - start) / 1000);
}
database.close();
rmSync(dir, { recursive: true, force: true });

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const best = (v) => Math.min(...v);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`${ROUNDS} rounds of runs of ${CALLS} tool calls (action + result), the run's end told\n`);
console.log('| variant | µs / call, best | µs / call, median | × before (median) |');
console.log('| --- | --- | --- | --- |');
for (const variant of order) {
  const m = median(times[variant]);
  console.log(
    `| ${variant} | ${best(times[variant]).toFixed(2)} | ${m.toFixed(2)} | ${(m / median(times.before)).toFixed(3)} |`,
  );
}
console.log(
  `\none recordRunTally on SQLite: median ${median(writes).toFixed(1)} µs, best ${best(writes).toFixed(1)} µs (2,000 writes)`,
);
