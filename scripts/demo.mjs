// The loopguard demo: a scripted autopilot that falls into each of the seed's three loops, and the
// LoopDetector that catches and recovers each one, with every decision in a SQLite file.
// Run: bash scripts/demo.sh
import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { LoopDetector, ManualClock } from '../packages/core/dist/index.js';
import { openLoopGuardDatabase } from '../packages/sqlite/dist/index.js';

const DB_PATH = '.loopguard/demo.db';
const clock = new ManualClock(Date.UTC(2025, 9, 18, 22, 0, 0));
const logger = pino(
  { level: 'info', base: undefined, timestamp: false },
  { write: (line) => console.log(`  [log] ${JSON.parse(line).msg}`) },
);
for (const suffix of ['', '-wal', '-shm']) rmSync(`${DB_PATH}${suffix}`, { force: true });
const database = openLoopGuardDatabase(DB_PATH, { clock, createDirectory: true });
const { stateMachine, attemptStore } = database;
const detector = new LoopDetector(stateMachine, { clock, logger, attemptStore });

for (const [id, title, status] of [
  ['T3.4.2', 'Dashboard page', 'done'],
  ['T3.4.3', 'Design-system review', 'in_progress'],
  ['T7.1.2', 'Config loader', 'in_progress'],
]) {
  stateMachine.upsertTask({ id, title, status });
}

let session = 0;
/** One autopilot pick: check for a loop BEFORE executing; record the attempt AFTER. */
async function pick(taskId, status, blockers, completedWork, note) {
  const loop = detector.detectLoop(taskId);
  if (loop.isLooping) {
    const outcome = await detector.applyRecovery(loop);
    console.log(`Attempt ${loop.attemptCount + 1}: LOOP DETECTED (${loop.loopType}) - ${outcome.action}`);
    return false;
  }
  session++;
  detector.recordAttempt(taskId, status, blockers, completedWork, `session_${session}`);
  console.log(`Attempt ${detector.getStatus()[taskId]?.attemptCount}: ${taskId} (${status}) - "${note}"`);
  clock.advance(60_000);
  return true;
}

console.log('\n1. Completed task revisit: the autopilot keeps picking a task that is done');
for (const note of [
  'Checking if task complete...',
  'Verifying implementation...',
  'Running final checks...',
  'Re-reading requirements...',
]) {
  if (!(await pick('T3.4.2', 'done', [], [note], note))) break;
}
console.log(`Next task: ${stateMachine.listTasks({ statuses: ['in_progress'] })[0]?.id} (fresh start)`);

console.log('\n2. Blocked task spin: the same blocker every time');
const blockers = ['critic:design_system unavailable'];
for (let i = 0; i < 4; i++)
  if (!(await pick('T3.4.3', 'blocked', blockers, [], 'Waiting for the design-system critic'))) break;
console.log('   ...the autopilot got unblock authority, but spins on the same blocker again:');
for (let i = 0; i < 4; i++)
  if (!(await pick('T3.4.3', 'blocked', blockers, [], 'Still waiting for the critic'))) break;
console.log(
  `   T3.4.3 is now ${stateMachine.getTask('T3.4.3')?.status}: ${stateMachine.getTask('T3.4.3')?.blockedReason}`,
);

console.log('\n3. No progress repeat: five sessions, identical completed work');
for (let i = 0; i < 5; i++) {
  detector.recordAttempt(
    'T7.1.2',
    'in_progress',
    [],
    ['Read file A', 'Parse config'],
    `session_${++session}`,
  );
  clock.advance(60_000);
}
const noProgress = detector.detectLoop('T7.1.2');
const forced = await detector.applyRecovery(noProgress);
console.log(
  `   ${noProgress.attemptCount} attempts -> ${forced.applied ? forced.action : 'nothing applied'}`,
);

const SEED_SQL = `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`;
console.log(`\nThe seed's SQL over ${DB_PATH}:\n${SEED_SQL}`);
for (const row of database.db.prepare(SEED_SQL).all()) {
  console.log(`\n--- ${row.topic} (${new Date(row.timestamp).toISOString()}) ---\n${row.content}`);
}
console.log('\nStatus (seed dashboard shape):', JSON.stringify({ loopDetection: detector.getStatus() }));
database.close();
