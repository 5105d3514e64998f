// Benchmark of @loopguard/sqlite: attempt write throughput, open-and-resume of a large file, and the
// seed's recovery query over a large context_entries table. Files are built in a temp directory.
// Run: pnpm run bench:sqlite   (or: npx tsc -b && node scripts/bench-sqlite.mjs)
// Options (env): BENCH_QUICK=1 for a smaller run (100k attempts / 10k tasks / 100k entries);
// BENCH_ONLY=writes|cost|status|entries (comma-separated) for some sections only.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LoopDetector, ManualClock } from '../packages/core/dist/index.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const QUICK = process.env.BENCH_QUICK === '1';
/** BENCH_ONLY=writes,cost,status,entries runs only those sections (default: all). */
const ONLY = process.env.BENCH_ONLY?.split(',') ?? ['writes', 'cost', 'status', 'entries'];
const runs = (section) => ONLY.includes(section);
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
    const detector = new LoopDetector(store.storage, { clock });
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

/**
 * What the per-task summary (triggers of schema version 3) costs the writes: single-transaction
 * appends and batches of 1,000, with the summary and with its insert trigger dropped, interleaved.
 */
function benchSummaryCost() {
  const rates = { single: { with: [], without: [] }, batched: { with: [], without: [] } };
  const batch = Array.from({ length: 100_000 }, (_, i) => attempt(`T${i % 1000}`, T0 + i, i));
  for (let run = 0; run < RUNS; run++) {
    for (const variant of ['with', 'without']) {
      const path = join(dir, `summary-${variant}-${run}.db`);
      const store = openLoopGuardDatabase(path);
      if (variant === 'without') store.db.exec('DROP TRIGGER attempts_summary_insert');
      let start = performance.now();
      for (let i = 0; i < 10_000; i++) store.attemptStore.append(batch[i]);
      rates.single[variant].push(10_000 / ((performance.now() - start) / 1000));
      start = performance.now();
      for (let i = 0; i < batch.length; i += 1000) store.attemptStore.appendMany(batch.slice(i, i + 1000));
      rates.batched[variant].push(batch.length / ((performance.now() - start) / 1000));
      store.close();
      rmSync(path, { force: true });
    }
  }
  const m = (xs) => median(xs);
  return {
    singleWith: m(rates.single.with),
    singleWithout: m(rates.single.without),
    batchedWith: m(rates.batched.with),
    batchedWithout: m(rates.batched.without),
  };
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
  for (let run = 0; run < RUNS; run++) {
    const now = T0 + Math.floor(BIG_ATTEMPTS / 1000) + 1;
    const clock = new ManualClock(now);
    const start = performance.now();
    const store = openLoopGuardDatabase(path, { clock });
    const detector = new LoopDetector(store.storage, { clock });
    const result = detector.detectLoop(`T${(run * 7919) % BIG_TASKS}`);
    times.push(performance.now() - start);
    if (result.attemptCount !== BIG_ATTEMPTS / BIG_TASKS)
      throw new Error(`resume saw ${result.attemptCount} attempts`);
    store.close();
  }
  return { resume: median(times) };
}

/** The GROUP BY that getStatus() ran before the per-task summary (schema version 3). */
const OLD_STATUS_SQL =
  'SELECT task_id, count(*) AS attempt_count, max(timestamp) AS last_attempt FROM attempts WHERE timestamp >= ? GROUP BY task_id';

/** getStatus(): the old GROUP BY over the window against the summary, all tasks and the first page, interleaved. */
function benchStatus(path) {
  const now = T0 + Math.floor(BIG_ATTEMPTS / 1000) + 1;
  const clock = new ManualClock(now);
  const store = openLoopGuardDatabase(path, { clock });
  const detector = new LoopDetector(store.storage, { clock });
  const since = now - detector.options.attemptWindow;
  const old = store.db.prepare(OLD_STATUS_SQL);
  const oldStatus = () => {
    const status = {};
    for (const row of old.all(since))
      status[row.task_id] = { attemptCount: row.attempt_count, lastAttempt: row.last_attempt };
    return status;
  };
  const samples = { old: [], all: [], first: [], oldFirst: [], pages: [] };
  const time = (key, fn) => {
    const start = performance.now();
    const value = fn();
    samples[key].push(performance.now() - start);
    return value;
  };
  for (let run = 0; run < RUNS; run++) {
    const before = time('old', oldStatus);
    const after = time('all', () => detector.getStatus());
    if (Object.keys(after).length !== BIG_TASKS || Object.keys(before).length !== BIG_TASKS)
      throw new Error('getStatus saw the wrong number of tasks');
    // the old way to the first 100 tasks: the whole GROUP BY, then the first 100 ids
    time('oldFirst', () => Object.keys(oldStatus()).sort().slice(0, 100));
    const page = time('first', () => detector.getStatus({ limit: 100 }));
    if (Object.keys(page.tasks).length !== 100 || page.total !== BIG_TASKS)
      throw new Error('wrong first page');
    time('pages', () => {
      let seen = 0;
      let next = detector.getStatus({ limit: 1000 });
      seen += Object.keys(next.tasks).length;
      while (next.nextCursor !== null) {
        next = detector.getStatus({ limit: 1000, cursor: next.nextCursor });
        seen += Object.keys(next.tasks).length;
      }
      if (seen !== BIG_TASKS) throw new Error('paging missed tasks');
    });
  }
  store.close();
  return Object.fromEntries(Object.entries(samples).map(([key, xs]) => [key, median(xs)]));
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

  if (runs('writes')) {
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
  }
  if (runs('cost')) {
    const cost = benchSummaryCost();
    console.log('\n  what the per-task summary costs the writes (with / without its trigger, same run):');
    report('append, one transaction each, with the summary', fmt(cost.singleWith), 'attempts/s', '', true);
    report('append, one transaction each, without it', fmt(cost.singleWithout), 'attempts/s', '', true);
    report('appendMany (1,000 per batch), with the summary', fmt(cost.batchedWith), 'attempts/s', '', true);
    report('appendMany (1,000 per batch), without it', fmt(cost.batchedWithout), 'attempts/s', '', true);
  }
  if (runs('status')) {
    const resumePath = join(dir, 'resume.db');
    const buildResume = buildResumeFile(resumePath);
    console.log(
      `\n  built ${fmt(BIG_ATTEMPTS)} attempts over ${fmt(BIG_TASKS)} tasks in ${fmt(buildResume)} ms (${fmt(statSync(resumePath).size / 1e6)} MB)`,
    );
    const { resume } = benchResume(resumePath);
    report(
      `open and resume (${fmt(BIG_ATTEMPTS)} attempts / ${fmt(BIG_TASKS)} tasks)`,
      resume.toFixed(2),
      'ms',
      '< 500 ms',
      resume < 500,
    );
    const status = benchStatus(resumePath);
    console.log(
      `\n  getStatus() over ${fmt(BIG_TASKS)} tasks in the window (old GROUP BY and summary, same run):`,
    );
    report('getStatus(), old GROUP BY over the window', status.old.toFixed(1), 'ms', '', true);
    report('getStatus(), per-task summary', status.all.toFixed(1), 'ms', '≤ 300 ms', status.all <= 300);
    report('  ratio old / summary', (status.old / status.all).toFixed(1), '×', '', true);
    report('first 100 tasks, old (GROUP BY, then sort)', status.oldFirst.toFixed(1), 'ms', '', true);
    report(
      'getStatus({ limit: 100 }) with the total',
      status.first.toFixed(2),
      'ms',
      '≤ 20 ms',
      status.first <= 20,
    );
    report('  ratio old / paged', (status.oldFirst / status.first).toFixed(0), '×', '', true);
    report(
      'every task in pages of 1,000 (getStatus({ limit: 1000, cursor }))',
      status.pages.toFixed(1),
      'ms',
      '',
      true,
    );
  }
  if (runs('entries')) {
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
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
