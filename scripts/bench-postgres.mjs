// Benchmark of @loopguard/postgres, in one run on one throwaway PostgreSQL cluster:
// - recordAttempt throughput with 1 and 8 concurrent worker processes (each records progress
//   attempts at random tasks of 50 through SharedLoopDetector), against the raw `pg` floor (the same
//   rows, one autocommit INSERT each, no detector) and against SQLite (LoopDetector with
//   sharedStorage on one file); with BENCH_COMPARE, also the detector of another built checkout
//   (an older commit), measured in the same run, interleaved, on a schema of its own;
// - recovery latency under contention: 8 workers record "done" attempts at 4 tasks and call
//   recoverIfLooping after each; the time of the calls that wrote a recovery.
// Both backends keep every acknowledged attempt across a power cut: PostgreSQL with its production
// settings (fsync, synchronous_commit on), SQLite in WAL mode with synchronous = FULL.
// Run: pnpm run bench:postgres   (or: npx tsc -b && node scripts/bench-postgres.mjs)
// Options (env): BENCH_SECONDS (default 5) per measurement; BENCH_ROUNDS (default 2) rounds of the
// throughput table, figures shown as min–max; BENCH_COMPARE=<label>=<path of another checkout,
// built>[,…];
// BENCH_PROFILE=1 adds PostgreSQL's own account (pg_stat_statements) of one 8-worker run per build:
// the statements each recordAttempt sends, their calls per attempt and mean time.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ThrowawayCluster } from '../packages/postgres/dist/testing/index.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TASKS = 50;
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const PROFILE = process.env.BENCH_PROFILE === '1';
/** The other builds to measure in the same run: BENCH_COMPARE="label=path,label=path" (or plain paths). */
const compare = (process.env.BENCH_COMPARE ?? '')
  .split(',')
  .filter((item) => item !== '')
  .map((item) => {
    const [label, path] = item.includes('=') ? item.split('=') : [item, item];
    return { label, root: resolve(path) };
  });
const worker = fileURLToPath(new URL('./bench-postgres-worker.mjs', import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-pg-'));
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const range = (xs) => (xs.length === 0 ? '—' : `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`);
const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg()[0].toFixed(1);
const percentile = (xs, p) =>
  xs.length === 0
    ? Number.NaN
    : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

let fresh = 0;
/** A new, empty store: a PostgreSQL schema migrated by the build at `root`, or a SQLite file. */
async function newTarget(backend, cluster, root = here) {
  fresh += 1;
  if (backend === 'postgres') {
    const schema = `bench_${fresh}`;
    const { openPostgresStorage } = await import(
      pathToFileURL(join(root, 'packages/postgres/dist/index.js')).href
    );
    const storage = await openPostgresStorage({ connectionString: cluster.connectionString, schema });
    await storage.close();
    return JSON.stringify({ connectionString: cluster.connectionString, schema });
  }
  const path = join(dir, `bench-${fresh}.db`);
  openLoopGuardDatabase(path).close();
  return path;
}

/** Runs `workers` worker processes of the build at `root` for SECONDS; returns their JSON reports. */
async function measure(root, backend, target, mode, workers, tasks) {
  const startAt = Date.now() + 1500 + workers * 150; // after every worker has connected
  const args = (w) => [
    worker,
    root,
    backend,
    target,
    mode,
    String(SECONDS * 1000),
    String(startAt),
    String(w),
    String(tasks),
  ];
  const reports = await Promise.all(
    Array.from({ length: workers }, (_, w) =>
      run(process.execPath, args(w), { maxBuffer: 64 * 1024 * 1024 }),
    ),
  );
  return reports.map((r) => JSON.parse(r.stdout));
}

/** Attempts per second of one measurement. */
async function rate(root, backend, mode, workers, cluster) {
  const reports = await measure(root, backend, await newTarget(backend, cluster, root), mode, workers, TASKS);
  return reports.reduce((sum, r) => sum + r.count, 0) / SECONDS;
}

/** PostgreSQL's account of one 8-worker run of the build at `root`: statements by total time. */
async function profile(root, title) {
  const pg = createRequire(join(here, 'packages/postgres/package.json'))('pg');
  const client = new pg.Client({ connectionString: cluster.connectionString });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const target = await newTarget('postgres', cluster, root);
    await client.query('SELECT pg_stat_statements_reset()');
    const reports = await measure(root, 'postgres', target, 'attempts', 8, TASKS);
    const attempts = reports.reduce((sum, r) => sum + r.count, 0);
    const { rows } = await client.query(
      `SELECT calls, mean_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 6`,
    );
    console.log(`\n${title}: ${fmt(attempts / SECONDS)} attempts/s with 8 workers; statements by total time`);
    console.log('| calls per attempt | mean ms | statement |\n| ---: | ---: | --- |');
    for (const row of rows) {
      console.log(
        `| ${(row.calls / attempts).toFixed(2)} | ${row.mean_exec_time.toFixed(3)} | \`${row.query}\` |`,
      );
    }
  } finally {
    await client.end();
  }
}

const cluster = await ThrowawayCluster.start({
  durable: true,
  settings: PROFILE ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] : [],
});
try {
  console.log(
    `Machine: ${os.cpus().length} cores, Node ${process.version}; ${SECONDS} s per measurement, ${ROUNDS} rounds; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const columns = [
    ['raw', 'raw pg INSERT', here, 'postgres', 'raw'],
    ['this', 'this build', here, 'postgres', 'attempts'],
    ...compare.map(({ label, root }) => [label, label, root, 'postgres', 'attempts']),
    ['sqlite', 'SQLite', here, 'sqlite', 'attempts'],
  ];
  const figures = { 1: {}, 8: {} };
  const loads = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const workers of [1, 8]) {
      // alternate the order each round, so that a change of the machine's load hits every column alike
      const order = round % 2 === 0 ? columns : [...columns].reverse();
      for (const [key, , root, backend, mode] of order) {
        loads.push(Number(load()));
        figures[workers][key] ??= [];
        figures[workers][key].push(await rate(root, backend, mode, workers, cluster));
      }
    }
  }
  console.log(
    `\nrecordAttempt, attempts per second (all workers together; progress attempts at random tasks of ${TASKS})`,
  );
  for (const { label, root } of compare) console.log(`${label} = the build in ${root}`);
  console.log(`load average (1 min) during the measurements: ${Math.min(...loads)}–${Math.max(...loads)}`);
  const header = ['workers', ...columns.map(([, title]) => title), 'this / raw'];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => ' ---: ').join('|')}|`);
  for (const workers of [1, 8]) {
    const row = figures[workers];
    const cells = columns.map(([key]) => range(row[key]));
    console.log(`| ${workers} | ${cells.join(' | ')} | ${(mid(row.this) / mid(row.raw)).toFixed(2)} |`);
  }
  for (const [key, title] of columns) {
    console.log(
      `${title}: 8 workers / 1 worker = ${(mid(figures[8][key]) / mid(figures[1][key])).toFixed(2)}`,
    );
  }

  if (PROFILE) {
    await profile(here, 'this build');
    for (const { label, root } of compare) await profile(root, label);
  }

  console.log('\nRecovery under contention: 8 workers, 4 looping tasks (ms per recoverIfLooping call)');
  console.log(
    `${'backend'.padEnd(12)}${'recoveries'.padStart(11)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p99'.padStart(8)}${'no-loop p50'.padStart(13)}`,
  );
  for (const backend of ['postgres', 'sqlite']) {
    const reports = await measure(here, backend, await newTarget(backend, cluster), 'recovery', 8, 4);
    const recovered = reports.flatMap((r) => r.recoveryMs);
    const other = reports.flatMap((r) => r.otherMs);
    console.log(
      `${backend.padEnd(12)}${String(recovered.length).padStart(11)}${percentile(recovered, 0.5).toFixed(1).padStart(8)}${percentile(recovered, 0.95).toFixed(1).padStart(8)}${percentile(recovered, 0.99).toFixed(1).padStart(8)}${percentile(other, 0.5).toFixed(1).padStart(13)}`,
    );
  }
} finally {
  await cluster.destroy();
  rmSync(dir, { recursive: true, force: true });
}
