// Load benchmark of the status server (autocannon, 100 connections, loopback): GET /status?limit=100,
// /recoveries?limit=50 and /metrics on a SQLite file of 100,000 tasks and 1,000,000 attempts. For
// comparison it also serves the routes with the answer cache off (/uncached/..., every request
// queries SQLite, as when the file changes all the time) and, from the same file in the same server process, the seed's unpaged
// status (every task's { attemptCount, lastAttempt } through AttemptStore.summarize) and prints the ratio.
// With --store postgres the same data goes into a throwaway PostgreSQL cluster and the server reads it
// through PgStatusReader (the fleet's dashboard); the unpaged seed status is SQLite-only.
// Run: npx tsc -b && node scripts/bench-server.mjs [--store sqlite|postgres] [--tasks 100000] [--attempts-per-task 10] [--duration 10]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '100000' },
    'attempts-per-task': { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '100' },
    db: { type: 'string' },
    store: { type: 'string', default: 'sqlite' },
  },
});
const POSTGRES = values.store === 'postgres';
const TASKS = Number(values.tasks);
const PER_TASK = Number(values['attempts-per-task']);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-server-'));
const path = values.db ?? join(dir, 'bench.db');
const now = Date.now();

function build() {
  const started = performance.now();
  const database = openLoopGuardDatabase(path);
  const { db } = database;
  const task = db.prepare(
    "INSERT INTO tasks (id, title, status, created_at, updated_at) VALUES (?, ?, 'in_progress', ?, ?)",
  );
  const attempt = db.prepare(
    "INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id) VALUES (?, ?, 'blocked', '[\"missing auth token\"]', '[]', ?)",
  );
  const entry = db.prepare(
    "INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, metadata) VALUES (?, 'decision', ?, ?, ?, ?)",
  );
  const topics = ['loop_recovery', 'unblock_authority', 'loop_escalation'];
  db.transaction(() => {
    for (let i = 0; i < TASKS; i++) {
      const id = `T${String(i).padStart(6, '0')}`;
      task.run(id, `Task ${i}`, now - 3_000_000, now - 3_000_000);
      for (let k = 0; k < PER_TASK; k++) attempt.run(id, now - 3_000_000 + k * 60_000 + i, `session_${k}`);
      if (i % 10 === 0) {
        const topic = topics[(i / 10) % 3];
        const metadata = JSON.stringify({
          taskId: id,
          loopType: 'blocked_task_spin',
          attemptCount: 3,
          evidence: [],
        });
        entry.run(now - 3_000_000 + i, topic, `Recovery for ${id}`, JSON.stringify([id]), metadata);
      }
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  database.close();
  console.log(
    `built ${path}: ${TASKS} tasks, ${TASKS * PER_TASK} attempts, ${TASKS / 10} recoveries in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** The same data in PostgreSQL, built with generate_series; returns the cluster and its connection string. */
async function buildPostgres() {
  const started = performance.now();
  const { ThrowawayCluster } = await import('../packages/postgres/dist/testing/index.js');
  const { openPostgresStorage } = await import('../packages/postgres/dist/index.js');
  const cluster = await ThrowawayCluster.start();
  const storage = await openPostgresStorage({ connectionString: cluster.connectionString, schema: 'bench' });
  const id = "'T' || lpad(i::text, 6, '0')";
  const since = now - 3_000_000;
  await storage.pool.query(`
    INSERT INTO tasks (id, title, status, created_at, updated_at)
      SELECT ${id}, 'Task ' || i, 'in_progress', ${since}, ${since} FROM generate_series(0, ${TASKS - 1}) AS i;
    INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id)
      SELECT ${id}, ${since} + k * 60000 + i, 'blocked', '["missing auth token"]', '[]', 'session_' || k
      FROM generate_series(0, ${TASKS - 1}) AS i, generate_series(0, ${PER_TASK - 1}) AS k;
    INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, metadata)
      SELECT ${since} + i, 'decision', (ARRAY['loop_recovery', 'unblock_authority', 'loop_escalation'])[(i / 10) % 3 + 1],
        'Recovery for ' || ${id}, jsonb_build_array(${id}),
        jsonb_build_object('taskId', ${id}, 'loopType', 'blocked_task_spin', 'attemptCount', 3, 'evidence', '[]'::jsonb)
      FROM generate_series(0, ${TASKS - 1}, 10) AS i;
  `);
  // What autovacuum does after a bulk load: it also empties the GIN index's pending list.
  await storage.pool.query('VACUUM ANALYZE');
  await storage.close();
  console.log(
    `built PostgreSQL schema bench: ${TASKS} tasks, ${TASKS * PER_TASK} attempts, ${TASKS / 10} recoveries in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return cluster;
}

const SERVER_POSTGRES = `
import { createServer } from 'node:http';
import { openPostgresStorage, PgStatusReader } from '${new URL('../packages/postgres/dist/index.js', import.meta.url).href}';
import { createStatusHandler } from '${new URL('../packages/server/dist/index.js', import.meta.url).href}';
const storage = await openPostgresStorage({ connectionString: process.argv[1], schema: 'bench', migrate: false });
const reader = new PgStatusReader(storage);
const handler = createStatusHandler({ reader });
const uncached = createStatusHandler({ reader, cacheMs: 0 });
await handler.ready;
const server = createServer((req, res) => {
  if (req.url.startsWith('/uncached/')) {
    req.url = req.url.slice('/uncached'.length);
    uncached(req, res);
    return;
  }
  handler(req, res);
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

// The server process: the status handler, plus /naive-status (the seed's unpaged getStatus) for comparison.
const SERVER = `
import { createServer } from 'node:http';
import { openLoopGuardDatabase, SqliteStatusReader } from '${new URL('../packages/sqlite/dist/index.js', import.meta.url).href}';
import { createStatusHandler } from '${new URL('../packages/server/dist/index.js', import.meta.url).href}';
const database = openLoopGuardDatabase(process.argv[1], { readonly: true });
const reader = new SqliteStatusReader(database);
const handler = createStatusHandler({ reader });
const uncached = createStatusHandler({ reader, cacheMs: 0 });
const server = createServer((req, res) => {
  if (req.url === '/naive-status') {
    const loopDetection = Object.fromEntries(database.attemptStore.summarize(Date.now() - 3_600_000));
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ running: false, tickCount: 0, loopDetection }));
    return;
  }
  if (req.url.startsWith('/uncached/')) {
    req.url = req.url.slice('/uncached'.length);
    uncached(req, res);
    return;
  }
  handler(req, res);
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

async function startServer(target) {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', POSTGRES ? SERVER_POSTGRES : SERVER, target],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, port };
}

async function load(port, path, connections, duration) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections, duration });
  const errors = result.errors + result.non2xx + result.timeouts;
  return {
    path,
    connections,
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
  };
}

const cluster = POSTGRES ? await buildPostgres() : undefined;
if (!POSTGRES && (!values.db || !existsSync(path))) build();
const { child, port } = await startServer(cluster ? cluster.connectionString : path);
try {
  console.log(
    `store: ${POSTGRES ? 'PostgreSQL (throwaway cluster, same machine)' : 'SQLite'}; machine: ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}; autocannon ${CONNECTIONS} connections, ${DURATION} s per route, loopback`,
  );
  await load(port, '/status?limit=100', 10, 2); // warm-up
  const rows = [];
  for (const route of [
    '/status?limit=100',
    '/recoveries?limit=50',
    '/metrics',
    '/healthz',
    '/uncached/status?limit=100',
    '/uncached/recoveries?limit=50',
  ])
    rows.push(await load(port, route, CONNECTIONS, DURATION));
  // The unpaged status answers in seconds per request: fewer connections so that it finishes.
  const naive = POSTGRES ? undefined : await load(port, '/naive-status', 4, DURATION);
  if (naive) rows.push(naive);
  console.log('\n| route | connections | requests | req/s | p50 ms | p99 ms | errors |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows)
    console.log(
      `| \`${r.path}\` | ${r.connections} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`,
    );
  const paged = rows[0];
  console.log(
    `\np99 target < 20 ms: /status?limit=100 ${paged.p99 < 20 ? 'met' : 'NOT met'} (${paged.p99} ms)`,
  );
  if (naive)
    console.log(
      `paged /status vs the seed's unpaged status: ${(naive.p50 / paged.p50).toFixed(0)}x lower p50 latency`,
    );
} finally {
  child.kill();
  await cluster?.destroy();
  if (!values.db) rmSync(dir, { recursive: true, force: true });
}
