import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openLoopGuardDatabase } from '../src/index.js';
import { assertBuilt, runFixture, startFixture, tempDir } from './helpers.js';

const T0 = 1_760_825_000_000;
const SEED_SQL = `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`;

describe('several processes on one file', () => {
  let tmp: ReturnType<typeof tempDir>;
  let path: string;
  beforeAll(assertBuilt);
  beforeEach(() => {
    tmp = tempDir();
    path = `${tmp.dir}/state.db`;
  });
  afterEach(() => tmp.remove());

  const steps = (at: number, list: unknown[]) =>
    runFixture('script.mjs', [path, String(at), JSON.stringify(list)]).map((line) => JSON.parse(line));

  it('a restarted process resumes: attempts in the window count, a recovered loop stays recovered, expired attempts are pruned', () => {
    const b = ['missing auth token'];
    steps(T0, [
      { upsert: { id: 'T1', title: 'auth' } },
      { record: ['T1', 'blocked', b, [], 'p1-a'] },
      { record: ['T1', 'blocked', b, [], 'p1-b'] },
      { record: ['T2', 'done', [], ['w'], 'p1-c'] },
      { record: ['T2', 'done', [], ['w'], 'p1-d'] },
    ]);

    const [status, , detected, recovered] = steps(T0 + 1000, [
      { status: true },
      { record: ['T1', 'blocked', b, [], 'p2-a'] },
      { detect: 'T1' },
      { recover: 'T1' },
    ]);
    expect(status).toEqual({
      T1: { attemptCount: 2, lastAttempt: T0 + 3 },
      T2: { attemptCount: 2, lastAttempt: T0 + 5 },
    });
    expect(detected).toMatchObject({ isLooping: true, recommendation: 'unblock_authority', attemptCount: 3 });
    expect(recovered).toEqual({ applied: true, action: 'unblock_authority', topic: 'unblock_authority' });

    const third = steps(T0 + 2000, [
      { detect: 'T1' },
      { record: ['T1', 'blocked', b, [], 'p3-a'] },
      { record: ['T1', 'blocked', b, [], 'p3-b'] },
      { record: ['T1', 'blocked', b, [], 'p3-c'] },
      { recover: 'T1' },
      { task: 'T1' },
      { record: ['T2', 'done', [], ['w'], 'p3-d'] },
      { detect: 'T2' },
    ]);
    expect(third[0]).toMatchObject({ isLooping: false, attemptCount: 0 });
    expect(third[4]).toEqual({ applied: true, action: 'escalate', topic: 'loop_escalation' });
    expect(third[5]).toMatchObject({ status: 'blocked' });
    expect(third[7]).toMatchObject({ isLooping: true, loopType: 'completed_task_revisit', attemptCount: 3 });

    // an hour later every attempt of T2 is outside the window: nothing counts, the store prunes them
    const [late, pruned] = steps(T0 + 3_700_000, [{ status: true }, { prune: true }]);
    expect(late).toEqual({});
    expect(pruned).toEqual({ pruned: 3 });

    const db = new Database(path, { readonly: true });
    try {
      expect(
        db
          .prepare(SEED_SQL)
          .all()
          .map((row) => (row as { topic: string }).topic),
      ).toEqual(['loop_escalation', 'unblock_authority']);
      expect(db.prepare('SELECT count(*) AS n FROM attempts').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('two writers on one file lose no write and never surface SQLITE_BUSY', async () => {
    const count = 1500;
    const writers = ['A', 'B'].map((id) => startFixture('writer.mjs', [path, id, String(count)], () => {}));
    const results = await Promise.all(writers.map((w) => w.exited));
    for (const [i, result] of results.entries()) {
      expect({ ...result, stderr: writers[i]?.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
    }
    const store = openLoopGuardDatabase(path);
    try {
      const counts = store.db
        .prepare(
          'SELECT substr(session_id, 1, 1) AS writer, count(DISTINCT session_id) AS n FROM attempts GROUP BY writer',
        )
        .all();
      expect(counts).toEqual([
        { writer: 'A', n: count },
        { writer: 'B', n: count },
      ]);
      const events = store.db.prepare('SELECT count(*) AS n FROM task_events').get() as { n: number };
      // per writer: 20 tasks created (one event each) + one transition per 7th step
      expect(events.n).toBe(2 * (20 + Math.ceil(count / 7)));
    } finally {
      store.close();
    }
  });

  it('two processes detecting the same loops at once apply exactly one recovery per loop', async () => {
    const tasks = 25;
    openLoopGuardDatabase(path).close(); // create the schema once, up front
    const ready: Array<() => void> = [];
    const outcomes: Array<{ taskId: string; looping: boolean; applied: boolean }> = [];
    const racers = ['X', 'Y'].map((id) => {
      let markReady: () => void = () => {};
      ready.push(() => markReady());
      const isReady = new Promise<void>((resolve) => {
        markReady = resolve;
      });
      const racer = startFixture('racer.mjs', [path, id, String(tasks), '3'], (line) => {
        if (line === 'ready') markReady();
        else outcomes.push(JSON.parse(line));
      });
      return { ...racer, isReady };
    });
    await Promise.all(racers.map((r) => r.isReady));
    for (const racer of racers) racer.child.stdin.write('go\n');
    const results = await Promise.all(racers.map((r) => r.exited));
    expect(results.map((r) => r.code)).toEqual([0, 0]);

    expect(outcomes).toHaveLength(2 * tasks);
    expect(outcomes.every((o) => o.looping)).toBe(true);
    for (let i = 0; i < tasks; i++) {
      const applied = outcomes.filter((o) => o.taskId === `R${i}` && o.applied);
      expect(applied, `task R${i}`).toHaveLength(1);
    }
    const store = openLoopGuardDatabase(path);
    try {
      const perTask = store.db
        .prepare(
          "SELECT l.task_id, count(*) AS n FROM context_entry_tasks l JOIN context_entries e ON e.id = l.entry_id WHERE e.topic = 'unblock_authority' GROUP BY l.task_id",
        )
        .all() as Array<{ n: number }>;
      expect(perTask).toHaveLength(tasks);
      expect(perTask.every((row) => row.n === 1)).toBe(true);
      expect(store.db.prepare('SELECT count(*) AS n FROM attempts').get()).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });

  it('a writer killed with SIGKILL mid-burst leaves a sound database holding every returned attempt', async () => {
    const printed: number[] = [];
    let killed = false;
    const writer = startFixture('writer.mjs', [path, 'K', '10000000'], (line) => {
      printed.push(Number(line));
      if (!killed && printed.length >= 400) {
        killed = true;
        writer.child.kill('SIGKILL');
      }
    });
    const result = await writer.exited;
    expect(result.signal).toBe('SIGKILL');
    expect(printed.length).toBeGreaterThanOrEqual(400);

    const db = new Database(path);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const stored = new Set(
        (
          db.prepare("SELECT session_id FROM attempts WHERE session_id LIKE 'K-%'").pluck().all() as string[]
        ).map((s) => Number(s.slice(2))),
      );
      const missing = printed.filter((i) => !stored.has(i));
      expect(missing).toEqual([]);
    } finally {
      db.close();
    }
    // and loopguard opens it again and keeps writing
    const store = openLoopGuardDatabase(path);
    try {
      store.attemptStore.append({
        taskId: 'after',
        timestamp: T0,
        status: 'pending',
        blockers: [],
        completedWork: [],
        sessionId: 'x',
      });
      expect(store.attemptStore.listSince('after', 0)).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});
