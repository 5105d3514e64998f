// One worker process of scripts/bench-postgres.mjs. Waits for the common start time, then for
// `durationMs` either records progress attempts at random tasks (mode "attempts"), or inserts the
// same rows with plain `pg` (mode "raw": one autocommit INSERT each, the floor any detector pays),
// or races the other workers on looping tasks, timing each recoverIfLooping call (mode "recovery").
// `root` is the checkout whose build it loads (this one, or an older one to compare with).
// Prints one JSON line: { count, recoveryMs: [...], otherMs: [...] }.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [root, backend, target, mode, durationMs, startAt, worker, tasks] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(root, path)).href);

let detector;
let close;
let raw;
if (mode === 'raw') {
  const pg = createRequire(join(root, 'packages/postgres/package.json'))('pg');
  const { connectionString, schema } = JSON.parse(target);
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  raw = (taskId, work) =>
    client.query({
      name: 'raw_insert',
      text: 'INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work, session_id) VALUES ($1, $2, $3, $4, $5, $6)',
      values: [taskId, Date.now(), 'in_progress', '[]', JSON.stringify([work]), `w${worker}`],
    });
  close = () => client.end();
} else if (backend === 'postgres') {
  const { SharedLoopDetector } = await load('packages/core/dist/index.js');
  const { openPostgresStorage } = await load('packages/postgres/dist/index.js');
  const storage = await openPostgresStorage({ ...JSON.parse(target), max: 2 });
  detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
  close = () => storage.close();
} else {
  const { LoopDetector } = await load('packages/core/dist/index.js');
  const { openLoopGuardDatabase } = await load('packages/sqlite/dist/index.js');
  const database = openLoopGuardDatabase(target, { synchronous: 'FULL', busyTimeoutMs: 30_000 });
  detector = new LoopDetector(database.storage, { maxAttempts: 3, sharedStorage: true });
  close = async () => database.close();
}

let seed = Number(worker) * 7919 + 17;
const random = (n) => {
  seed = (seed * 48271) % 2147483647;
  return seed % n;
};
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const deadline = Date.now() + Number(durationMs);
let count = 0;
const recoveryMs = [];
const otherMs = [];
while (Date.now() < deadline) {
  const taskId = `T${random(Number(tasks))}`;
  const work = `step ${worker}.${count}`;
  if (mode === 'raw') {
    await raw(taskId, work);
  } else if (mode === 'attempts') {
    await detector.recordAttempt(taskId, 'in_progress', [], [work], `w${worker}`);
  } else {
    await detector.recordAttempt(taskId, 'done', [], ['implemented'], `w${worker}`);
    const started = performance.now();
    const outcome = await detector.recoverIfLooping(taskId);
    (outcome.applied ? recoveryMs : otherMs).push(performance.now() - started);
  }
  count += 1;
}
process.stdout.write(`${JSON.stringify({ count, recoveryMs, otherMs })}\n`);
await close();
