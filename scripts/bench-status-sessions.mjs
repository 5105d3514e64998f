// What the sessions cost the status server: on SQLite files of N hook sessions (a third nudged, a
// sixth stopped, with their entries), the time of one read of /status as it was (the task page
// alone) and as it is (the task page, the newest 20 sessions and the counts by verdict), of a
// /sessions page, of the counts (/metrics' session gauges) and of one session's entries, in the
// same run. The answer cache (1 s while the file is unchanged) is off: every call queries.
// Run: npx tsc -b && node scripts/bench-status-sessions.mjs [--sessions 1000,10000] [--runs 20]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ManualClock } from '../packages/core/dist/index.js';
import { statusSnapshot } from '../packages/server/dist/index.js';
import {
  openLoopGuardDatabase,
  SqliteHookSessionStore,
  SqliteStatusReader,
} from '../packages/sqlite/dist/index.js';

const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '1000,10000' }, runs: { type: 'string', default: '20' } },
});
const RUNS = Number(values.runs);
const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-sessions-'));

function build(n) {
  const clock = new ManualClock(Date.now() - 2 * n * 1000);
  const database = openLoopGuardDatabase(join(dir, `${n}.db`), { clock });
  const hooks = new SqliteHookSessionStore({ db: database.db, clock });
  database.db.exec('BEGIN');
  for (let i = 0; i < n; i++) {
    const sessionId = `s${i}`;
    const [nudges, stops] = [i % 3 === 0 ? 1 : 0, i % 6 === 0 ? 1 : 0];
    hooks.update({ agent: 'claude', sessionId, projectDir: '/repo' }, () => ({
      next: {
        snapshot: '{}',
        lastResults: '[]',
        steps: 20,
        toolCalls: 10,
        parentSessionId: null,
        agentType: null,
        nudges,
        stops,
        enabled: true,
      },
      result: null,
    }));
    for (const [topic, toolCall] of [
      ['loop_nudge', 3],
      ['loop_stop', 4],
    ].slice(0, nudges + stops))
      database.stateMachine.addContextEntry({
        entryType: 'learning',
        topic,
        content: topic,
        relatedTasks: [`claude:${sessionId}`],
        metadata: { loopType: 'same_error', toolCall, runId: sessionId },
      });
    clock.advance(1000);
  }
  database.db.exec('COMMIT');
  return { database, clock };
}

async function median(fn) {
  await fn();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

console.log(
  `| hook sessions | /status as it was | /status now | /sessions?limit=25 | counts (/metrics) | one session's entries |`,
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
for (const n of values.sessions.split(',').map(Number)) {
  const { database, clock } = build(n);
  const reader = new SqliteStatusReader(database);
  const before = await median(() => reader.taskPage({ limit: 100, attemptsSince: 0 }));
  const now = await median(() =>
    statusSnapshot(reader, { limit: 100, cursor: undefined }, { clock, attemptsRecorded: 0 }),
  );
  const page = await median(() => reader.sessionPage({ limit: 25 }));
  const counts = await median(() => reader.sessionCounts());
  const entries = await median(() => reader.sessionEntries({ agent: 'claude', sessionId: `s${n - 6}` }, 500));
  const ms = (v) => v.toFixed(1);
  console.log(
    `| ${n.toLocaleString('en-US')} | ${ms(before)} | ${ms(now)} | ${ms(page)} | ${ms(counts)} | ${ms(entries)} |`,
  );
  database.close();
}
rmSync(dir, { recursive: true, force: true });
