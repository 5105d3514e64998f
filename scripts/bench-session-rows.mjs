// What every door's read of the sessions costs (`status`'s page, `scan`'s records: the view
// `agent_sessions` with the columns the readers add, `sessionRowColumns`), for two builds in one run:
// a database of 2,000 Codex sessions, each stopped at call 4 with two repeats denied after (the worst
// case: every session stopped), or one in ten so (a project's usual), every row read. Each figure is
// the least wall time over REPS reads, the builds taking turns. Prints after / before.
// Run: npx tsc -b && node scripts/bench-session-rows.mjs <before repo> [after repo, default .]
// Env: LOOPGUARD_BENCH_REPS (default 7).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [beforeArg, afterArg = '.'] = process.argv.slice(2);
if (beforeArg === undefined)
  throw new Error('usage: node scripts/bench-session-rows.mjs <before repo> [after repo]');
const [before, after] = [resolve(beforeArg), resolve(afterArg)];
const REPS = Number(process.env.LOOPGUARD_BENCH_REPS ?? 7);
const SESSIONS = 2000;

/** A read of every session row with `repo`'s build, over a database where one in `every` is stopped. */
async function reader(repo, every) {
  const { openLoopGuardDatabase, SqliteHookSessionStore } = await import(
    `${repo}/packages/sqlite/dist/index.js`
  );
  const { readLiveSessions, sessionRowColumns } = await import(
    `${repo}/packages/sqlite/dist/liveSessions.js`
  );
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-rows-'));
  const database = openLoopGuardDatabase(join(dir, 'state.db'), { createDirectory: true });
  const hooks = new SqliteHookSessionStore({ db: database.db });
  database.db.transaction(() => {
    for (let i = 0; i < SESSIONS; i++) {
      const stopped = i % every === 0;
      const state = {
        snapshot: '{}',
        lastResults: '[]',
        steps: 8,
        toolCalls: 4,
        parentSessionId: null,
        agentType: null,
        nudges: 1,
        stops: stopped ? 3 : 0,
        enabled: true,
      };
      hooks.update({ agent: 'codex', sessionId: `s${i}`, projectDir: '/p' }, () => ({
        next: state,
        result: null,
      }));
      for (const call of stopped ? [4, 5, 6] : [])
        database.stateMachine.addContextEntry({
          entryType: 'decision',
          topic: 'loop_stop',
          content: 'stopped',
          relatedTasks: [`codex:s${i}`],
          metadata: {
            loopType: 'same_error',
            toolCall: call,
            ...(call > 4 ? { deniedBeforeRun: true } : {}),
          },
        });
    }
  })();
  readLiveSessions(database.db);
  const select = database.db.prepare(`SELECT ${sessionRowColumns(database.db)} FROM agent_sessions`);
  return {
    read: () => {
      const start = process.hrtime.bigint();
      if (select.all().length !== SESSIONS) throw new Error('a session was not read');
      return Number(process.hrtime.bigint() - start) / 1e6;
    },
    close: () => {
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

for (const every of [1, 10]) {
  const builds = [await reader(before, every), await reader(after, every)];
  const best = [Infinity, Infinity];
  for (let rep = 0; rep < REPS; rep++)
    for (const [i, build] of builds.entries()) best[i] = Math.min(best[i], build.read());
  for (const build of builds) build.close();
  console.log(
    `${SESSIONS} sessions, 1 in ${every} stopped: before ${best[0].toFixed(1)} ms, after ${best[1].toFixed(1)} ms, after / before ${(best[1] / best[0]).toFixed(2)}`,
  );
}
