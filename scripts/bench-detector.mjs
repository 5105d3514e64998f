// Benchmark of LoopDetector.recordAttempt + detectLoop, against a reference implementation of the
// seed's naive algorithm (filter, sort and join over the task's attempts on every call).
// Run: pnpm run bench   (or: npx tsc -b && node scripts/bench-detector.mjs)
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { InMemoryStateMachine, LoopDetector, ManualClock } from '../packages/core/dist/index.js';

const BATCH = 1000;

/** The seed's algorithm as first written: every call filters, sorts and joins the task's attempts. */
class NaiveDetector {
  constructor(clock, { maxAttempts = 3, attemptWindow = 3_600_000 } = {}) {
    this.clock = clock;
    this.maxAttempts = maxAttempts;
    this.attemptWindow = attemptWindow;
    this.attempts = new Map();
  }
  recordAttempt(taskId, status, blockers, completedWork, sessionId) {
    const list = this.attempts.get(taskId) ?? [];
    list.push({
      taskId,
      timestamp: this.clock.now(),
      status,
      blockers: [...blockers],
      completedWork: [...completedWork],
      sessionId,
    });
    this.attempts.set(taskId, list);
  }
  detectLoop(taskId) {
    const cutoff = this.clock.now() - this.attemptWindow;
    const recent = (this.attempts.get(taskId) ?? []).filter((a) => a.timestamp >= cutoff);
    this.attempts.set(taskId, recent);
    recent.sort((a, b) => a.timestamp - b.timestamp);
    const last = recent.slice(-this.maxAttempts);
    const result = { isLooping: false, attemptCount: recent.length };
    if (last.length < this.maxAttempts) return result;
    const key = (xs) => [...xs].sort().join('|');
    if (last.every((a) => a.status === 'done'))
      return { ...result, isLooping: true, loopType: 'completed_task_revisit' };
    const blockers = key(last[0].blockers);
    if (last.every((a) => a.status === 'blocked' && key(a.blockers) === blockers)) {
      return { ...result, isLooping: true, loopType: 'blocked_task_spin' };
    }
    const work = key(last[0].completedWork);
    if (last.every((a) => a.status === last[0].status && key(a.completedWork) === work)) {
      return { ...result, isLooping: true, loopType: 'no_progress_repeat' };
    }
    return result;
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** ns per call of one batch of BATCH calls of `call`, starting at call number `first`. */
function batch(call, first) {
  const start = process.hrtime.bigint();
  for (let k = 0; k < BATCH; k++) call(first + k);
  return Number(process.hrtime.bigint() - start) / BATCH;
}

/** Median ns per call over `batches` batches of each of `calls`, run interleaved (a, b, c, a, b, c, …). */
function measureInterleaved(batches, calls) {
  const perCall = calls.map(() => []);
  for (let b = 0; b < batches; b++) {
    calls.forEach((call, j) => {
      perCall[j].push(batch(call, b * BATCH));
    });
  }
  return perCall.map(median);
}

/** Each call records an attempt on the next of `taskCount` tasks (round robin) and judges it. */
function manyTasks(make, taskCount, batches) {
  const clock = new ManualClock(0);
  const detector = make(clock);
  const ids = Array.from({ length: taskCount }, (_, i) => `T${i}`);
  const works = [['Read file A'], ['Parse config'], ['Write tests']];
  let n = 0;
  const call = () => {
    const i = n++;
    const taskId = ids[i % taskCount];
    clock.advance(1);
    detector.recordAttempt(taskId, 'in_progress', [], works[Math.floor(i / taskCount) % 3], 'bench');
    detector.detectLoop(taskId);
  };
  for (let i = 0; i < 2 * taskCount; i++) call(); // warm-up: every task holds attempts
  return measureInterleaved(batches, [call])[0];
}

/**
 * One task per history length, whose window holds that many attempts: each call records one attempt
 * and judges the task. The lengths are measured interleaved in one process so that machine noise
 * (this is a shared 2-core VM) hits them alike.
 */
function longHistories(make, histories, batches) {
  const calls = histories.map((history) => {
    const clock = new ManualClock(0);
    const detector = make(clock, { attemptWindow: history });
    let n = 0;
    return () => {
      const i = n++;
      clock.advance(1);
      detector.recordAttempt('T1', 'in_progress', ['flaky network'], [`step ${i % 7}`], 'bench');
      detector.detectLoop('T1');
    };
  });
  calls.forEach((call, j) => {
    for (let i = 0; i <= histories[j]; i++) call(); // warm-up: the window is full
  });
  return measureInterleaved(batches, calls);
}

const makeFast = (clock, options = {}) =>
  new LoopDetector(new InMemoryStateMachine({ clock }), { clock, ...options });
const makeNaive = (clock, options = {}) => new NaiveDetector(clock, options);

const HISTORIES = [10, 1_000, 10_000];
const SCENARIOS = {
  tasks: { labels: ['100,000 tasks'], run: (make, naive) => [manyTasks(make, 100_000, naive ? 100 : 300)] },
  history: {
    labels: HISTORIES.map((h) => `1 task, ${h.toLocaleString('en')} attempts in window`),
    run: (make, naive) => longHistories(make, HISTORIES, naive ? 5 : 300),
  },
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

// Child mode: one scenario, one implementation, in a fresh heap; prints the median ns per call.
const [, , scenarioArg, implArg] = process.argv;
if (scenarioArg) {
  const naive = implArg === 'naive';
  console.log(JSON.stringify(SCENARIOS[scenarioArg].run(naive ? makeNaive : makeFast, naive)));
  process.exit(0);
}

/** Median over ROUNDS fresh processes, rounds interleaved across scenarios to spread machine noise. */
const results = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const key of Object.keys(SCENARIOS)) {
    for (const impl of ['loopguard', 'naive']) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), key, impl], {
        encoding: 'utf8',
      });
      results[key] ??= { loopguard: [], naive: [] };
      results[key][impl].push(JSON.parse(out));
    }
  }
}

const fmt = (ns) => (ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`);
const cpus = os.cpus();
console.log(
  `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
console.log(
  `Median ns per recordAttempt + detectLoop call (batches of ${BATCH} calls; median of ${ROUNDS} fresh processes):\n`,
);
console.log('| scenario | loopguard | naive (seed algorithm) | naive / loopguard |');
console.log('| --- | ---: | ---: | ---: |');
const fast = [];
for (const [key, { labels }] of Object.entries(SCENARIOS)) {
  labels.forEach((label, j) => {
    const mine = median(results[key].loopguard.map((r) => r[j]));
    const naive = median(results[key].naive.map((r) => r[j]));
    fast.push(mine);
    console.log(`| ${label} | ${fmt(mine)} | ${fmt(naive)} | ${(naive / mine).toFixed(1)}× |`);
  });
}
const ratios = results.history.loopguard.map((r) => (r[2] / r[0]).toFixed(2));
console.log(
  `\nHistory independence: 10,000 vs 10 attempts = ${(fast[3] / fast[1]).toFixed(2)}× (per process: ${ratios.join(', ')}; target ≤ 1.5×)`,
);
console.log(`100,000 tasks: ${fmt(fast[0])} per call (target ≤ 1 µs)`);
