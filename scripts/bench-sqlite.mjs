// Benchmark of @loopguard/sqlite: attempt write throughput, open-and-resume of a large file, and the
// seed's recovery query over a large context_entries table. Files are built in a temp directory.
// Run: pnpm run bench:sqlite   (or: npx tsc -b && node scripts/bench-sqlite.mjs)
// Options (env): BENCH_QUICK=1 for a smaller run (100k attempts / 10k tasks / 100k entries).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LoopDetector, ManualClock } from '../packages/core/dist/index.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const QUICK = process.env.BENCH_QUICK === '1';
const BIG_ATTEMPTS = QUICK ? 100_000 : 1_000_000;
const BIG_TASKS = QUICK ? 10_000 : 100_000;
const BIG_ENTRIES = QUICK ? 100_000 : 1_000_000;
const RUNS = 5;
const T0 = 1_760_825_000_000;
const SEED_SQL = `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`;

const dir = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const results = [];
function report(name, value, unit, target, ok) {
  results.push({ name, value, unit, target, ok });
  console.log(
    `${name.padEnd(62)} ${String(value).padStart(14)} ${unit.padEnd(10)} ${target ? `target ${target}: ${ok ? 'met' : 'MISSED'}` : ''}`,
  );
}

function attempt(taskId, timestamp, i) {
  return {
    taskId,
    timestamp,
    status: i % 3 === 0 ? 'blocked' : 'in_progress',
    blockers: i % 3 === 0 ? ['critic:design_system unavailable'] : [],
    completedWork: [`step ${i % 7}`],
    sessionId: `session_${i}`,
  };
}

/** Attempts per second with one autocommit transaction per attempt. */
function benchSingle(synchronous, n) {
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    const path = join(dir, `single-${synchronous}-${run}.db`);
    const store = openLoopGuardDatabase(path, { synchronous });
    const start = performance.now();
    for (let i = 0; i < n; i++) store.attemptStore.append(attempt(`T${i % 1000}`, T0 + i, i));
    rates.push(n / ((performance.now() - start) / 1000));
    store.close();
    rmSync(path, { force: true });
  }
  return median(rates);
}

/** Attempts per second through LoopDetector.recordAttempt (validation, copy, freeze, store). */
function benchRecordAttempt(n) {
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    const path = join(dir, `record-${run}.db`);
    const clock = new ManualClock(T0);
    const store = openLoopGuardDatabase(path, { clock });
    const detector = new LoopDetector(store.stateMachine, { attemptStore: store.attemptStore, clock });
    const blockers = ['critic:design_system unavailable'];
    const work = ['Read file A'];
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      clock.advance(1);
      detector.recordAttempt(`T${i % 1000}`, 'in_progress', i % 3 ? [] : blockers, work, `session_${i}`);
    }
    rates.push(n / ((performance.now() - start) / 1000));
    store.close();
  }
  return median(rates);
}

/** Attempts per second with appendMany in batches. */
function benchBatched(n, batch, tasks = 1000) {
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    const path = join(dir, `batched-${run}.db`);
    const store = openLoopGuardDatabase(path);
    // tasks round-robin: with 1,000 tasks every attempt of a batch of 1,000 is for a different task
    const all = Array.from({ length: n }, (_, i) => attempt(`T${i % tasks}`, T0 + i, i));
    const start = performance.now();
    for (let i = 0; i < n; i += batch) store.attemptStore.appendMany(all.slice(i, i + batch));
    rates.push(n / ((performance.now() - start) / 1000));
    store.close();
    rmSync(path, { force: true });
  }
  return median(rates);
}

/** Builds the resume file: BIG_ATTEMPTS attempts over BIG_TASKS tasks, all inside the window. */
function buildResumeFile(path) {
  const store = openLoopGuardDatabase(path);
  const start = performance.now();
  const chunk = 100_000;
  for (let base = 0; base < BIG_ATTEMPTS; base += chunk) {
    const batch = [];
    for (let i = base; i < Math.min(base + chunk, BIG_ATTEMPTS); i++) {
      batch.push(attempt(`T${i % BIG_TASKS}`, T0 + Math.floor(i / 1000), i));
    }
    store.attemptStore.appendMany(batch);
  }
  for (let t = 0; t < BIG_TASKS; t += 10) store.stateMachine.upsertTask({ id: `T${t}`, title: `task ${t}` });
  store.close();
  return performance.now() - start;
}

/** Open + migration check + adapters + detector + first detectLoop of a task (lazy load of its attempts and grant). */
function benchResume(path) {
  const times = [];
  const statusTimes = [];
  for (let run = 0; run < RUNS; run++) {
    const now = T0 + Math.floor(BIG_ATTEMPTS / 1000) + 1;
    const clock = new ManualClock(now);
    const start = performance.now();
    const store = openLoopGuardDatabase(path, { clock });
    const detector = new LoopDetector(store.stateMachine, { attemptStore: store.attemptStore, clock });
    const result = detector.detectLoop(`T${(run * 7919) % BIG_TASKS}`);
    times.push(performance.now() - start);
    if (result.attemptCount !== BIG_ATTEMPTS / BIG_TASKS)
      throw new Error(`resume saw ${result.attemptCount} attempts`);
    const statusStart = performance.now();
    const status = detector.getStatus();
    statusTimes.push(performance.now() - statusStart);
    if (Object.keys(status).length !== BIG_TASKS) throw new Error('getStatus saw the wrong number of tasks');
    store.close();
  }
  return { resume: median(times), status: median(statusTimes) };
}

/** Builds BIG_ENTRIES context entries; `recoveryEvery`: one entry in that many is a recovery. */
function buildEntriesFile(path, recoveryEvery) {
  const store = openLoopGuardDatabase(path);
  const start = performance.now();
  store.db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BIG_ENTRIES})
    INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, confidence, metadata)
    SELECT ${T0} + i * 1000, 'decision',
      CASE WHEN i % ${recoveryEvery} <> 0 THEN 'notes'
           WHEN (i / ${recoveryEvery}) % 3 = 0 THEN 'loop_recovery'
           WHEN (i / ${recoveryEvery}) % 3 = 1 THEN 'unblock_authority'
           ELSE 'loop_escalation' END,
      'LOOP DETECTED: Task T' || (i % ${BIG_TASKS}) || ' completed after 4 attempts.',
      json_array('T' || (i % ${BIG_TASKS})), 1, json_object('attemptCount', 4)
    FROM n`);
  store.close();
  return performance.now() - start;
}

function benchSeedQuery(path) {
  const store = openLoopGuardDatabase(path, { readonly: true });
  const stmt = store.db.prepare(SEED_SQL);
  for (let i = 0; i < 100; i++) stmt.all();
  const times = [];
  for (let i = 0; i < 2000; i++) {
    const start = performance.now();
    const rows = stmt.all();
    times.push(performance.now() - start);
    if (rows.length !== 10) throw new Error('seed query returned the wrong number of rows');
  }
  const plan = store.db
    .prepare(`EXPLAIN QUERY PLAN ${SEED_SQL}`)
    .all()
    .map((r) => r.detail)
    .join('; ');
  const coldStart = performance.now();
  const cold = openLoopGuardDatabase(path, { readonly: true });
  cold.db.prepare(SEED_SQL).all();
  const firstQuery = performance.now() - coldStart;
  cold.close();
  store.close();
  return { median: median(times), p99: percentile(times, 0.99), plan, firstQuery };
}

try {
  console.log(
    `@loopguard/sqlite benchmark — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()} ${os.arch()}`,
  );
  console.log(`files in ${dir}; medians of ${RUNS} runs unless stated${QUICK ? ' (BENCH_QUICK)' : ''}\n`);

  const single = benchSingle('NORMAL', 50_000);
  report(
    'append, one transaction per attempt (synchronous=NORMAL)',
    fmt(single),
    'attempts/s',
    '≥ 20,000',
    single >= 20_000,
  );
  const singleFull = benchSingle('FULL', 5_000);
  report('append, one transaction per attempt (synchronous=FULL)', fmt(singleFull), 'attempts/s', '', true);
  const recorded = benchRecordAttempt(50_000);
  report(
    'LoopDetector.recordAttempt on SQLite (NORMAL)',
    fmt(recorded),
    'attempts/s',
    '≥ 20,000',
    recorded >= 20_000,
  );
  const batched = benchBatched(200_000, 1000);
  report(
    'appendMany, batches of 1,000 attempts',
    fmt(batched),
    'attempts/s',
    '≥ 200,000',
    batched >= 200_000,
  );
  const batched10k = benchBatched(200_000, 10_000);
  report(
    'appendMany, batches of 10,000 attempts',
    fmt(batched10k),
    'attempts/s',
    '≥ 200,000',
    batched10k >= 200_000,
  );
  const grouped = benchBatched(200_000, 1000, 10);
  report(
    'appendMany, batches of 1,000 attempts over 10 tasks',
    fmt(grouped),
    'attempts/s',
    '≥ 200,000',
    grouped >= 200_000,
  );

  const resumePath = join(dir, 'resume.db');
  const buildResume = buildResumeFile(resumePath);
  console.log(
    `\n  built ${fmt(BIG_ATTEMPTS)} attempts over ${fmt(BIG_TASKS)} tasks in ${fmt(buildResume)} ms (${fmt(statSync(resumePath).size / 1e6)} MB)`,
  );
  const { resume, status } = benchResume(resumePath);
  report(
    `open and resume (${fmt(BIG_ATTEMPTS)} attempts / ${fmt(BIG_TASKS)} tasks)`,
    resume.toFixed(2),
    'ms',
    '< 500 ms',
    resume < 500,
  );
  report(
    '  then getStatus() over every task in the window (not part of resume)',
    fmt(status),
    'ms',
    '',
    true,
  );

  for (const [label, every] of [
    ['every entry a recovery', 1],
    ['1 entry in 100 a recovery', 100],
  ]) {
    const path = join(dir, `entries-${every}.db`);
    const build = buildEntriesFile(path, every);
    console.log(`\n  built ${fmt(BIG_ENTRIES)} context entries (${label}) in ${fmt(build)} ms`);
    const q = benchSeedQuery(path);
    console.log(`  plan: ${q.plan}`);
    report(
      `seed query, ${fmt(BIG_ENTRIES)} entries, ${label} (median of 2,000)`,
      q.median.toFixed(4),
      'ms',
      '< 1 ms',
      q.median < 1,
    );
    report(`  p99`, q.p99.toFixed(4), 'ms', '', true);
    report(`  open read-only + first query (prepare included)`, q.firstQuery.toFixed(2), 'ms', '', true);
    rmSync(path, { force: true });
  }
  const missed = results.filter((r) => r.target && !r.ok);
  console.log(
    missed.length === 0 ? '\nall targets met' : `\nMISSED: ${missed.map((r) => r.name).join('; ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
