import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import {
  ConfigurationError,
  InvalidInputError,
  LoopDetector,
  ManualClock,
  RECOVERY_TOPICS,
  StorageError,
} from '@loopguard/core';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type LoopGuardDatabase,
  MIGRATIONS,
  type Migration,
  migrate,
  openLoopGuardDatabase,
  SCHEMA_VERSION,
  SqliteStatusReader,
} from '../src/index.js';
import { assertBuilt, portableFixtures, runFixture, tempDir } from './helpers.js';

const T0 = 1_760_825_000_000;
const SEED_SQL = `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`;
const SEED_SQL_ONE_LINE =
  "SELECT * FROM context_entries WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation') ORDER BY timestamp DESC LIMIT 10;";

function planOf(db: Database.Database, sql: string, ...params: unknown[]): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map(
    (r) => r.detail,
  );
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

describe('openLoopGuardDatabase', () => {
  it('configures WAL, foreign keys, busy timeout and synchronous=NORMAL on a file, and migrates once', () => {
    const path = `${tmp.dir}/state.db`;
    const store = openLoopGuardDatabase(path, { busyTimeoutMs: 1234 });
    expect(store.migration).toEqual({ from: 0, to: SCHEMA_VERSION, applied: MIGRATIONS.map((m) => m.name) });
    // the version the status line compares with is the last migration's (story56)
    expect(MIGRATIONS.at(-1)?.version).toBe(SCHEMA_VERSION);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    store.close();
    store.close(); // idempotent
    const again = openLoopGuardDatabase(path, { synchronous: 'FULL', walAutocheckpointPages: 1000 });
    expect(again.migration.applied).toEqual([]);
    expect(again.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(again.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    again.close();
  });

  it('creates the schema with the documented tables and indexes', () => {
    const store = openLoopGuardDatabase(':memory:');
    const names = store.db
      .prepare("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
      .all();
    expect(names).toEqual([
      { type: 'index', name: 'attempts_task_time' },
      { type: 'index', name: 'attempts_time' },
      { type: 'index', name: 'breaker_transitions_run' },
      { type: 'index', name: 'context_entries_recovery_time' },
      { type: 'index', name: 'context_entries_recovery_view_time' },
      { type: 'index', name: 'context_entries_time' },
      { type: 'index', name: 'context_entries_topic_time' },
      { type: 'index', name: 'hook_sessions_updated' },
      { type: 'index', name: 'iteration_checkpoints_session' },
      { type: 'index', name: 'iteration_checkpoints_task' },
      { type: 'index', name: 'iteration_history_task' },
      { type: 'index', name: 'iteration_sessions_task' },
      { type: 'index', name: 'runs_started' },
      { type: 'index', name: 'task_attempt_summary_last' },
      { type: 'index', name: 'task_events_task' },
      { type: 'index', name: 'tasks_status' },
      { type: 'table', name: 'adapter_runs' },
      { type: 'table', name: 'attempts' },
      { type: 'table', name: 'breaker_transitions' },
      { type: 'table', name: 'context_entries' },
      { type: 'table', name: 'context_entry_tasks' },
      { type: 'table', name: 'hook_sessions' },
      { type: 'table', name: 'iteration_checkpoints' },
      { type: 'table', name: 'iteration_history' },
      { type: 'table', name: 'iteration_sessions' },
      { type: 'table', name: 'run_iterations' },
      { type: 'table', name: 'runs' },
      { type: 'table', name: 'spend_ledgers' },
      { type: 'table', name: 'task_attempt_summary' },
      { type: 'table', name: 'task_events' },
      { type: 'table', name: 'tasks' },
      { type: 'trigger', name: 'attempts_summary_delete' },
      { type: 'trigger', name: 'attempts_summary_insert' },
      { type: 'trigger', name: 'attempts_summary_update' },
      { type: 'trigger', name: 'breaker_transitions_no_update' },
      { type: 'trigger', name: 'context_entries_link_tasks' },
      { type: 'trigger', name: 'context_entries_no_update' },
      { type: 'trigger', name: 'context_entries_unlink_tasks' },
      { type: 'trigger', name: 'iteration_checkpoints_no_update' },
      { type: 'trigger', name: 'task_events_no_delete' },
      { type: 'trigger', name: 'task_events_no_update' },
      { type: 'view', name: 'agent_sessions' },
    ]);
    expect(
      store.db
        .prepare('SELECT * FROM context_entries')
        .columns()
        .map((c) => c.name),
    ).toEqual([
      'id',
      'timestamp',
      'entry_type',
      'topic',
      'content',
      'related_tasks',
      'confidence',
      'metadata',
    ]);
    store.close();
  });

  it('takes an existing Database, configures and migrates it, and leaves it open on close()', () => {
    const db = new Database(`${tmp.dir}/mine.db`);
    const store = openLoopGuardDatabase(db);
    expect(store.db).toBe(db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    store.close();
    expect(db.open).toBe(true);
    db.close();
    expect(() => openLoopGuardDatabase(db)).toThrow(/closed Database/);
  });

  it('rejects bad options with ConfigurationError', () => {
    expect(() => openLoopGuardDatabase(':memory:', { synchronous: 'OFF' as 'FULL' })).toThrow(
      ConfigurationError,
    );
    expect(() => openLoopGuardDatabase(':memory:', { busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
    // 2^31 would wrap to a negative busy_timeout
    expect(() => openLoopGuardDatabase(':memory:', { busyTimeoutMs: 2 ** 31 })).toThrow(/"busyTimeoutMs"/);
    expect(() =>
      openLoopGuardDatabase(':memory:', { busyRetry: { retries: 1, initialDelayMs: 2 ** 31 } }),
    ).toThrow(/"busyRetry.initialDelayMs"/);
    expect(() => openLoopGuardDatabase(':memory:', { walAutocheckpointPages: 0.5 })).toThrow(
      /walAutocheckpointPages/,
    );
    expect(() =>
      openLoopGuardDatabase(':memory:', { busyRetry: { retries: 1.5, initialDelayMs: 1 } }),
    ).toThrow(/busyRetry/);
    expect(() => openLoopGuardDatabase(':memory:', { clock: {} as ManualClock })).toThrow(/clock/);
    expect(() => openLoopGuardDatabase(':memory:', { readonly: true })).toThrow(ConfigurationError);
    expect(() => openLoopGuardDatabase('')).toThrow(InvalidInputError);
  });

  it.each([
    [{ synchronus: 'FULL' }, /"synchronus"/],
    [{ readonly: 'yes' }, /"readonly"/],
    [{ walAutocheckpointPages: 2 ** 31 }, /"walAutocheckpointPages"/],
    [{ busyTimeoutMs: 3e9 }, /"busyTimeoutMs"/],
    [{ busyRetry: { retries: 1, initialDelayMs: 1, jitter: true } }, /"busyRetry"/],
  ])('option %o is a ConfigurationError naming it, before anything is opened', (options, name) => {
    const dir = tempDir();
    try {
      const path = `${dir.dir}/state.db`;
      expect(() => openLoopGuardDatabase(path, options as never)).toThrow(ConfigurationError);
      expect(() => openLoopGuardDatabase(path, options as never)).toThrow(name);
      expect(existsSync(path)).toBe(false);
    } finally {
      dir.remove();
    }
  });

  it('rejects a path that is not a string or Database', () => {
    expect(() => openLoopGuardDatabase(42 as unknown as string)).toThrow(InvalidInputError);
  });
});

describe('bad files', () => {
  it('a file that is not SQLite: storage_unavailable naming the path', () => {
    const path = `${tmp.dir}/notes.txt`;
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(100));
    const error = thrown(() => openLoopGuardDatabase(path)) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toContain(JSON.stringify(path));
    expect(error.message).toMatch(/not a SQLite database/);
    expect(error.cause).toBeDefined();
  });

  it('a database with a newer schema version: schema_too_new naming the path and both versions', () => {
    const path = `${tmp.dir}/future.db`;
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    const error = thrown(() => openLoopGuardDatabase(path)) as StorageError;
    expect(error.code).toBe('schema_too_new');
    expect(error.message).toContain(JSON.stringify(path));
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 5}`);
    expect(error.message).toContain(`(${SCHEMA_VERSION})`);
    const readonly = thrown(() => openLoopGuardDatabase(path, { readonly: true })) as StorageError;
    expect(readonly.code).toBe('schema_too_new');
  });

  it('a missing directory: storage_unavailable naming the directory; createDirectory creates it', () => {
    const path = `${tmp.dir}/no/such/dir/state.db`;
    const error = thrown(() => openLoopGuardDatabase(path)) as StorageError;
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toContain(JSON.stringify(path));
    expect(error.message).toContain(`"${tmp.dir}/no/such/dir" does not exist`);
    const store = openLoopGuardDatabase(path, { createDirectory: true });
    store.close();
  });

  it('a directory instead of a file, and a missing file opened read-only', () => {
    expect((thrown(() => openLoopGuardDatabase(tmp.dir)) as StorageError).message).toMatch(/is a directory/);
    const missing = thrown(() =>
      openLoopGuardDatabase(`${tmp.dir}/absent.db`, { readonly: true }),
    ) as StorageError;
    expect(missing.code).toBe('storage_unavailable');
    expect(missing.message).toMatch(/does not exist/);
  });

  describe('read-only', () => {
    beforeAll(assertBuilt);

    it('a read-only file: storage_unavailable naming the path (and readonly: true reads it)', () => {
      const path = `${tmp.dir}/ro.db`;
      const store = openLoopGuardDatabase(path);
      store.stateMachine.upsertTask({ id: 'T1' });
      store.close();
      chmodSync(path, 0o444);
      chmodSync(tmp.dir, 0o755);
      // root ignores file modes: check as an unprivileged user then, from a copy of the fixture and
      // its packages that the user can read wherever the checkout lives
      let asUser = {};
      let portable: ReturnType<typeof portableFixtures> | undefined;
      if (process.getuid?.() === 0) {
        portable = portableFixtures();
        asUser = { uid: 65534, gid: 65534, cwd: portable.dir, fixturePath: portable.fixture('open.mjs') };
      }
      let line: string | undefined;
      try {
        [line] = runFixture('open.mjs', [path], asUser);
      } finally {
        portable?.remove();
      }
      const result = JSON.parse(line as string);
      expect(result).toMatchObject({ ok: false, name: 'StorageError', code: 'storage_unavailable' });
      expect(result.message).toContain(JSON.stringify(path));
      expect(result.message).toMatch(/read-only/);
    });

    it('readonly: true reads, and a write is a clear storage_unavailable error', () => {
      const path = `${tmp.dir}/ro.db`;
      const store = openLoopGuardDatabase(path);
      store.stateMachine.upsertTask({ id: 'T1' });
      store.close();
      const reader = openLoopGuardDatabase(path, { readonly: true });
      expect(reader.stateMachine.getTask('T1')?.id).toBe('T1');
      const error = thrown(() => reader.stateMachine.upsertTask({ id: 'T2' })) as StorageError;
      expect(error.code).toBe('storage_unavailable');
      expect(error.message).toContain(JSON.stringify(path));
      expect(error.message).toMatch(/read-only/);
      reader.close();
    });

    it('readonly: true on a database that needs migrating says so', () => {
      const path = `${tmp.dir}/old.db`;
      new Database(path).close();
      const error = thrown(() => openLoopGuardDatabase(path, { readonly: true })) as StorageError;
      expect(error.code).toBe('storage_unavailable');
      expect(error.message).toMatch(/schema version 0, older than/);
    });
  });

  it('a closed connection: storage_unavailable, not a TypeError', () => {
    const store = openLoopGuardDatabase(':memory:');
    store.close();
    const error = thrown(() => store.stateMachine.listTasks()) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe('storage_unavailable');
  });
});

describe('migrations', () => {
  it('apply pending steps in order in one transaction and set user_version', () => {
    const db = new Database(':memory:');
    const seen: number[] = [];
    const extra: Migration = {
      version: SCHEMA_VERSION + 1,
      name: 'extra',
      up: (d) => {
        seen.push(d.pragma('user_version', { simple: true }) as number);
        d.exec('CREATE TABLE extra (x)');
      },
    };
    expect(migrate(db).to).toBe(SCHEMA_VERSION);
    expect(migrate(db, { migrations: [...MIGRATIONS, extra] })).toEqual({
      from: SCHEMA_VERSION,
      to: SCHEMA_VERSION + 1,
      applied: ['extra'],
    });
    expect(seen).toEqual([SCHEMA_VERSION]);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    db.close();
  });

  it('a failing step rolls back every step of the run', () => {
    const db = new Database(':memory:');
    const failing: Migration = {
      version: SCHEMA_VERSION + 1,
      name: 'broken',
      up: (d) => d.exec('CREATE TABLE broken (x); SELECT no_such_function();'),
    };
    const error = thrown(() => migrate(db, { migrations: [...MIGRATIONS, failing] })) as StorageError;
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toMatch(/migrating to schema version/);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get()).toEqual({
      n: 0,
    });
    db.close();
  });

  it('versions must increase from 1', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, { migrations: [{ version: 0, name: 'x', up: () => {} }] })).toThrow(
      ConfigurationError,
    );
    db.close();
  });
});

describe('schema constraints', () => {
  let store: LoopGuardDatabase;
  beforeEach(() => {
    store = openLoopGuardDatabase(':memory:');
  });
  afterEach(() => store.close());

  it('JSON columns must hold valid JSON of the right shape', () => {
    const insert = store.db.prepare(
      'INSERT INTO attempts (task_id, timestamp, status, blockers, completed_work) VALUES (?, ?, ?, ?, ?)',
    );
    expect(() => insert.run('T', 1, 'done', 'not json', '[]')).toThrow(/CHECK constraint/);
    expect(() => insert.run('T', 1, 'done', '{"a":1}', '[]')).toThrow(/CHECK constraint/);
    expect(() => insert.run('T', 1, 'finished', '[]', '[]')).toThrow(/CHECK constraint/);
    expect(() =>
      store.db.prepare("INSERT INTO tasks VALUES ('T', '', 'pending', NULL, '[1]', 0, 0)").run(),
    ).toThrow(/CHECK constraint/);
    expect(() =>
      store.db
        .prepare(
          "INSERT INTO context_entries (timestamp, entry_type, topic, content, metadata) VALUES (1, 'decision', 't', 'c', '{')",
        )
        .run(),
    ).toThrow();
  });

  it('task_events and context entries are append-only; deleting an entry unlinks it from its tasks', () => {
    store.stateMachine.upsertTask({ id: 'T1' });
    expect(() => store.db.exec('UPDATE task_events SET reason = 1')).toThrow(/append-only/);
    expect(() => store.db.exec('DELETE FROM task_events')).toThrow(/append-only/);
    const entry = store.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 't',
      content: 'c',
      relatedTasks: ['T1', 'T2'],
    });
    expect(() => store.db.exec("UPDATE context_entries SET content = 'x'")).toThrow(/append-only/);
    expect(store.db.prepare('SELECT count(*) AS n FROM context_entry_tasks').get()).toEqual({ n: 2 });
    store.db.prepare('DELETE FROM context_entries WHERE id = ?').run(Number(entry.id));
    expect(store.db.prepare('SELECT count(*) AS n FROM context_entry_tasks').get()).toEqual({ n: 0 });
  });

  it('task_events reference tasks; attempts do not', () => {
    expect(() =>
      store.db
        .prepare(
          "INSERT INTO task_events (task_id, to_status, reason, timestamp) VALUES ('nope', 'done', 'r', 1)",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    store.attemptStore.append({
      taskId: 'unknown-task',
      timestamp: 1,
      status: 'done',
      blockers: [],
      completedWork: [],
      sessionId: '',
    });
    expect(store.attemptStore.listSince('unknown-task', 0)).toHaveLength(1);
  });

  it('the attempt store validates attempts before writing; appendMany writes all or none', () => {
    const good = {
      taskId: 'T',
      timestamp: 1,
      status: 'done' as const,
      blockers: [],
      completedWork: [],
      sessionId: '',
    };
    expect(() => store.attemptStore.append({ ...good, taskId: '' })).toThrow(InvalidInputError);
    expect(() => store.attemptStore.append({ ...good, timestamp: Number.NaN })).toThrow(/timestamp/);
    expect(() => store.attemptStore.append({ ...good, blockers: [1] as unknown as string[] })).toThrow(
      /blockers\[0\]/,
    );
    expect(() => store.attemptStore.appendMany([good, { ...good, status: 'nope' as 'done' }])).toThrow(
      /attempts\[1\]\.status/,
    );
    expect(() => store.attemptStore.prune(0, -1)).toThrow(/limit/);
    expect(store.attemptStore.listSince('T', 0)).toEqual([]);
  });

  it('prune deletes expired attempts in bounded batches', () => {
    const attempts = Array.from({ length: 2500 }, (_, i) => ({
      taskId: `T${i % 97}`,
      timestamp: i,
      status: 'in_progress' as const,
      blockers: [],
      completedWork: [],
      sessionId: '',
    }));
    store.attemptStore.appendMany(attempts);
    expect([1, 2, 3, 4].map(() => store.attemptStore.prune(2400, 1000))).toEqual([1000, 1000, 400, 0]);
    expect(store.db.prepare('SELECT min(timestamp) AS t, count(*) AS n FROM attempts').get()).toEqual({
      t: 2400,
      n: 100,
    });
  });
});

describe('query plans', () => {
  let store: LoopGuardDatabase;
  beforeEach(() => {
    store = openLoopGuardDatabase(':memory:');
  });
  afterEach(() => store.close());

  function fill(entries: number): void {
    store.db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${entries})
      INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks)
      SELECT i, 'decision', CASE i % 4 WHEN 0 THEN 'notes' WHEN 1 THEN 'loop_recovery' WHEN 2 THEN 'unblock_authority'
        ELSE 'loop_escalation' END, 'c', json_array('T' || (i % 100)) FROM n`);
  }

  it('the seed query runs verbatim on the recovery index, without sorting, with or without ANALYZE', () => {
    for (const sql of [SEED_SQL, SEED_SQL_ONE_LINE]) {
      expect(planOf(store.db, sql)).toEqual([
        'SCAN context_entries USING INDEX context_entries_recovery_time',
      ]);
    }
    fill(20_000);
    store.db.exec('ANALYZE');
    expect(planOf(store.db, SEED_SQL)).toEqual([
      'SCAN context_entries USING INDEX context_entries_recovery_time',
    ]);
    const rows = store.db.prepare(SEED_SQL).all() as Array<{ timestamp: number; topic: string }>;
    expect(rows.map((r) => r.timestamp)).toEqual([
      19_999, 19_998, 19_997, 19_995, 19_994, 19_993, 19_991, 19_990, 19_989, 19_987,
    ]);
    expect(rows.every((r) => r.topic !== 'notes')).toBe(true);
  });

  it('the adapters’ hot queries use indexes', () => {
    const plans = [
      planOf(
        store.db,
        'SELECT * FROM attempts WHERE task_id = ? AND timestamp >= ? ORDER BY timestamp, id',
        'T',
        0,
      ),
      planOf(
        store.db,
        'DELETE FROM attempts WHERE id IN (SELECT id FROM attempts WHERE timestamp < ? ORDER BY timestamp LIMIT ?)',
        0,
        1,
      ),
    ].flat();
    expect(plans.join('\n')).toContain('USING INDEX attempts_task_time (task_id=? AND timestamp>?)');
    expect(plans.join('\n')).toContain('USING COVERING INDEX attempts_time (timestamp<?)');
    expect(plans.join('\n')).not.toContain('TEMP B-TREE');
    const spy: string[] = [];
    const prepare = store.db.prepare.bind(store.db);
    store.db.prepare = ((sql: string) => {
      spy.push(sql);
      return prepare(sql);
    }) as typeof store.db.prepare;
    store.stateMachine.listContextEntries({ taskId: 'T1', topics: RECOVERY_TOPICS, limit: 1 });
    store.stateMachine.listContextEntries({ topics: ['loop_escalation'] });
    store.stateMachine.listContextEntries({ topics: ['notes'] });
    store.db.prepare = prepare;
    const [byTask, recovery, other] = spy.map((sql) =>
      planOf(store.db, sql, ...(sql.includes('l.task_id') ? ['T1', '[]', 1] : ['x', 1])).join('\n'),
    );
    expect(byTask).toContain('SEARCH l USING PRIMARY KEY (task_id=?)');
    expect(byTask).not.toContain('TEMP B-TREE');
    expect(recovery).toContain('context_entries_recovery_time');
    expect(other).toContain('context_entries_topic_time (topic=?)');
    expect(other).not.toContain('TEMP B-TREE');
  });

  it('the recoveries page lists step-level nudges and stops on the recovery view index, newest first', async () => {
    fill(2_000);
    store.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'Stopped (repeated_failure): …',
      relatedTasks: ['claude:s1'],
      confidence: 1,
      metadata: { loopType: 'repeated_failure', sessionId: 's1', agent: 'claude' },
    });
    store.db.exec('ANALYZE');
    const reader = new SqliteStatusReader(store);
    const spy: string[] = [];
    const prepare = store.db.prepare.bind(store.db);
    store.db.prepare = ((sql: string) => {
      spy.push(sql);
      return prepare(sql);
    }) as typeof store.db.prepare;
    const page = await reader.recoveryPage({ limit: 2 });
    store.db.prepare = prepare;
    expect(page.recoveries.map((r) => [r.topic, r.action, r.taskId])).toEqual([
      ['loop_stop', 'stop', 'claude:s1'],
      ['loop_escalation', 'escalate', 'T99'],
    ]);
    expect(page.recoveries[0]?.metadata).toMatchObject({ sessionId: 's1' });
    const plan = planOf(store.db, spy[0] as string, 3).join('\n');
    expect(plan).toContain('context_entries_recovery_view_time');
    expect(plan).not.toContain('TEMP B-TREE');
    const stops = await reader.recoveryPage({ limit: 5, topic: 'loop_stop', taskId: 'claude:s1' });
    expect(stops.recoveries.map((r) => r.action)).toEqual(['stop']);
    const feed = await reader.feedAfter({ attemptId: 0, entryId: 2_000, transitionId: 0 }, 10);
    expect(feed.recoveries.map((r) => r.action)).toEqual(['stop']);
    expect((await reader.metricsBaseline()).recoveries).toContainEqual({
      topic: 'loop_stop',
      loopType: 'repeated_failure',
      count: 1,
      loops: 1,
    });
  });
});

describe('atomic recovery', () => {
  let store: LoopGuardDatabase;
  let clock: ManualClock;
  let detector: LoopDetector;
  beforeEach(() => {
    clock = new ManualClock(T0);
    store = openLoopGuardDatabase(':memory:', { clock });
    detector = new LoopDetector(store.stateMachine, { attemptStore: store.attemptStore, clock });
    store.stateMachine.upsertTask({ id: 'T1' });
    for (let i = 0; i < 4; i++) detector.recordAttempt('T1', 'done', [], ['same'], `s${i}`);
  });
  afterEach(() => store.close());

  function nothingCommitted(): void {
    expect(store.stateMachine.getTask('T1')?.status).toBe('pending');
    expect(store.stateMachine.listTaskEvents('T1')).toHaveLength(1);
    expect(store.stateMachine.listContextEntries()).toEqual([]);
    expect(store.attemptStore.listSince('T1', 0)).toHaveLength(4);
  }

  it('when the context entry cannot be written, the transition and the attempt clearing roll back', async () => {
    store.db.exec(
      "CREATE TEMP TRIGGER fail_entry BEFORE INSERT ON main.context_entries BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
    );
    const error = await detector.applyRecovery(detector.detectLoop('T1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('storage_error');
    expect((error as StorageError).message).toMatch(/addContextEntry.*disk on fire/);
    nothingCommitted();

    store.db.exec('DROP TRIGGER temp.fail_entry');
    const outcome = await detector.applyRecovery(detector.detectLoop('T1'));
    expect(outcome.applied).toBe(true);
    expect(store.stateMachine.getTask('T1')?.status).toBe('done');
    expect(store.attemptStore.listSince('T1', 0)).toEqual([]);
  });

  it('when the attempts cannot be cleared, the transition and the entry roll back', async () => {
    store.db.exec(
      "CREATE TEMP TRIGGER fail_clear BEFORE DELETE ON main.attempts BEGIN SELECT RAISE(ABORT, 'cannot clear'); END",
    );
    const error = await detector.applyRecovery(detector.detectLoop('T1')).catch((e: unknown) => e);
    expect((error as StorageError).message).toMatch(/cannot clear/);
    nothingCommitted();
  });

  it('transaction(fn) rolls back writes of both ports when fn throws; a caught inner failure keeps the outer', () => {
    const attempt = {
      taskId: 'T9',
      timestamp: 1,
      status: 'done' as const,
      blockers: [],
      completedWork: [],
      sessionId: '',
    };
    expect(() =>
      store.stateMachine.transaction(() => {
        store.stateMachine.upsertTask({ id: 'T9' });
        store.attemptStore.append(attempt);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.stateMachine.getTask('T9')).toBeUndefined();
    expect(store.attemptStore.listSince('T9', 0)).toEqual([]);

    store.stateMachine.transaction(() => {
      store.stateMachine.upsertTask({ id: 'T9' });
      expect(() =>
        store.stateMachine.transaction(() => {
          store.attemptStore.append(attempt);
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(store.stateMachine.getTask('T9')).toBeDefined();
    expect(store.attemptStore.listSince('T9', 0)).toEqual([]);
  });

  it('a transaction function returning a promise is refused and rolled back', () => {
    expect(() =>
      store.stateMachine.transaction(() => {
        store.stateMachine.upsertTask({ id: 'P' });
        return Promise.resolve(1);
      }),
    ).toThrow(/promise/);
    expect(store.stateMachine.getTask('P')).toBeUndefined();
  });
});

describe('busy database', () => {
  it('a write blocked past the busy timeout and retries is a StorageError, not a raw SQLITE_BUSY', () => {
    const path = `${tmp.dir}/busy.db`;
    const store = openLoopGuardDatabase(path, {
      busyTimeoutMs: 0,
      busyRetry: { retries: 2, initialDelayMs: 1 },
    });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = thrown(() => store.stateMachine.upsertTask({ id: 'T1' })) as StorageError;
      expect(error).toBeInstanceOf(StorageError);
      expect(error.code).toBe('storage_error');
      expect(error.message).toMatch(/locked/);
      expect((error.cause as { code: string }).code).toBe('SQLITE_BUSY');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(store.stateMachine.upsertTask({ id: 'T1' }).id).toBe('T1');
    store.close();
  });
});

describe('scripted run and the seed SQL', () => {
  it('returns the recoveries of a run against a file, newest first, from a plain SQL connection', async () => {
    const path = `${tmp.dir}/run.db`;
    const clock = new ManualClock(T0);
    const store = openLoopGuardDatabase(path, { clock });
    const detector = new LoopDetector(store.stateMachine, { attemptStore: store.attemptStore, clock });
    const expected: Array<{ topic: string; task: string; timestamp: number }> = [];
    const tick = async (
      taskId: string,
      status: 'done' | 'blocked' | 'in_progress',
      blockers: string[],
      work: string[],
    ) => {
      clock.advance(1000);
      const result = detector.detectLoop(taskId);
      if (result.isLooping) {
        const outcome = await detector.applyRecovery(result);
        if (outcome.applied)
          expected.push({ topic: outcome.entry.topic, task: taskId, timestamp: clock.now() });
        return;
      }
      detector.recordAttempt(taskId, status, blockers, work, `session_${clock.now()}`);
    };
    for (const id of ['T3.4.2', 'T3.4.3', 'T7.1.2']) store.stateMachine.upsertTask({ id, title: id });
    for (let round = 0; round < 12; round++) {
      await tick('T3.4.2', 'done', [], ['Implemented dashboard.tsx']);
      await tick('T3.4.3', 'blocked', ['critic:design_system unavailable'], []);
      await tick('T7.1.2', 'in_progress', [], ['Read file A', 'Parse config']);
    }
    store.close();
    expect(expected.length).toBeGreaterThanOrEqual(5);

    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare(SEED_SQL).all() as Array<Record<string, unknown>>;
      const newestFirst = [...expected].reverse().slice(0, 10);
      expect(
        rows.map((r) => ({
          topic: r.topic,
          task: JSON.parse(r.related_tasks as string)[0],
          timestamp: r.timestamp,
        })),
      ).toEqual(newestFirst);
      expect(new Set(rows.map((r) => r.topic))).toEqual(
        new Set(['loop_recovery', 'unblock_authority', 'loop_escalation']),
      );
      const first = rows[0] as Record<string, unknown>;
      expect(Object.keys(first)).toEqual([
        'id',
        'timestamp',
        'entry_type',
        'topic',
        'content',
        'related_tasks',
        'confidence',
        'metadata',
      ]);
      expect(JSON.parse(first.metadata as string)).toHaveProperty('evidence');
      expect(planOf(db, SEED_SQL)).toEqual([
        'SCAN context_entries USING INDEX context_entries_recovery_time',
      ]);
    } finally {
      db.close();
    }
  });
});

describe('the detector owns its transactions', () => {
  it('events fire and the prune runs after the commit, never while the write lock is held', () => {
    const clock = new ManualClock(1_760_825_000_000);
    const store = openLoopGuardDatabase(':memory:', { clock });
    try {
      const detector = new LoopDetector(store.storage, { clock, pruneEvery: 1 });
      store.stateMachine.upsertTask({ id: 'T1' });
      const inTransaction: boolean[] = [];
      const prune = store.attemptStore.prune.bind(store.attemptStore);
      store.attemptStore.prune = (before, limit) => {
        inTransaction.push(store.db.inTransaction);
        return prune(before, limit);
      };
      detector.on('attemptRecorded', () => inTransaction.push(store.db.inTransaction));
      detector.on('loopDetected', () => inTransaction.push(store.db.inTransaction));
      detector.on('recoveryApplied', () => inTransaction.push(store.db.inTransaction));
      for (let i = 0; i < 3; i++) {
        detector.recordAttemptWithTransition({
          taskId: 'T1',
          status: 'done',
          blockers: [],
          completedWork: ['same'],
          reason: 'reported done',
        });
      }
      expect(detector.recoverIfLooping('T1')).toMatchObject({ applied: true, action: 'force_next' });
      // 3 × (prune + attemptRecorded), loopDetected, recoveryApplied
      expect(inTransaction).toEqual(Array(8).fill(false));
    } finally {
      store.close();
    }
  });
});
