// Benchmark of @loopguard/postgres against @loopguard/sqlite on one host, in the same run:
// - attempts per second with 1, 4 and 16 concurrent worker processes (each records progress
//   attempts at random tasks of 100, through SharedLoopDetector on PostgreSQL, or through
//   LoopDetector with sharedStorage on one SQLite file);
// - recovery latency under contention: 8 workers record "done" attempts at 4 tasks and call
//   recoverIfLooping after each; the time of the calls that wrote a recovery.
// Both keep every acknowledged attempt across a power cut: PostgreSQL with its production settings
// (fsync, synchronous_commit on), SQLite in WAL mode with synchronous = FULL.
// Run: pnpm run bench:postgres   (or: npx tsc -b && node scripts/bench-postgres.mjs)
// Options (env): BENCH_SECONDS (default 5) per measurement.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openPostgresStorage } from '../packages/postgres/dist/index.js';
import { ThrowawayCluster } from '../packages/postgres/dist/testing/index.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const worker = fileURLToPath(new URL('./bench-postgres-worker.mjs', import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-pg-'));
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const percentile = (xs, p) =>
  xs.length === 0
    ? Number.NaN
    : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

let fresh = 0;
/** A new, empty store of `backend`: a PostgreSQL schema or a SQLite file. */
async function newTarget(backend, cluster) {
  fresh += 1;
  if (backend === 'postgres') {
    const schema = `bench_${fresh}`;
    const storage = await openPostgresStorage({ connectionString: cluster.connectionString, schema });
    await storage.close();
    return JSON.stringify({ connectionString: cluster.connectionString, schema });
  }
  const path = join(dir, `bench-${fresh}.db`);
  openLoopGuardDatabase(path).close();
  return path;
}

/** Runs `workers` worker processes for SECONDS; returns their JSON reports. */
async function measure(backend, target, mode, workers, tasks) {
  const startAt = Date.now() + 1500 + workers * 150; // after every worker has connected
  const reports = await Promise.all(
    Array.from({ length: workers }, (_, w) =>
      run(
        process.execPath,
        [worker, backend, target, mode, String(SECONDS * 1000), String(startAt), String(w), String(tasks)],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      ),
    ),
  );
  return reports.map((r) => JSON.parse(r.stdout));
}

const cluster = await ThrowawayCluster.start({ durable: true });
try {
  console.log(`Machine: ${os.cpus().length} cores, Node ${process.version}; ${SECONDS} s per measurement\n`);
  console.log('Attempts per second (all workers together)');
  console.log(
    `${'workers'.padEnd(9)}${'PostgreSQL'.padStart(12)}${'SQLite'.padStart(12)}${'PG / SQLite'.padStart(14)}`,
  );
  for (const workers of [1, 4, 16]) {
    const rate = {};
    for (const backend of ['postgres', 'sqlite']) {
      const reports = await measure(backend, await newTarget(backend, cluster), 'attempts', workers, 100);
      rate[backend] = reports.reduce((sum, r) => sum + r.count, 0) / SECONDS;
    }
    console.log(
      `${String(workers).padEnd(9)}${fmt(rate.postgres).padStart(12)}${fmt(rate.sqlite).padStart(12)}${(rate.postgres / rate.sqlite).toFixed(2).padStart(14)}`,
    );
  }

  console.log('\nRecovery under contention: 8 workers, 4 looping tasks (ms per recoverIfLooping call)');
  console.log(
    `${'backend'.padEnd(12)}${'recoveries'.padStart(11)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p99'.padStart(8)}${'no-loop p50'.padStart(13)}`,
  );
  for (const backend of ['postgres', 'sqlite']) {
    const reports = await measure(backend, await newTarget(backend, cluster), 'recovery', 8, 4);
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
