// One worker process of scripts/bench-postgres.mjs. Waits for the common start time, then for
// `durationMs` either records progress attempts at random tasks (mode "attempts") or races the
// other workers on looping tasks, timing each recoverIfLooping call (mode "recovery").
// Prints one JSON line: { count, recoveryMs: [...], otherMs: [...] }.
import { performance } from 'node:perf_hooks';
import { LoopDetector, SharedLoopDetector } from '../packages/core/dist/index.js';
import { openPostgresStorage } from '../packages/postgres/dist/index.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const [backend, target, mode, durationMs, startAt, worker, tasks] = process.argv.slice(2);

let detector;
let close;
if (backend === 'postgres') {
  const storage = await openPostgresStorage({ ...JSON.parse(target), max: 2 });
  detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
  close = () => storage.close();
} else {
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
  if (mode === 'attempts') {
    await detector.recordAttempt(taskId, 'in_progress', [], [`step ${worker}.${count}`], `w${worker}`);
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
