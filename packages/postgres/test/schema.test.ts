import { ConfigurationError, ManualClock, StorageError } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { openPostgresStorage, PG_SCHEMA_VERSION, PgStatusReader, VERSION_TABLE } from '../src/index.js';
import { freePort } from '../src/testing/index.js';
import { freshSchema, openFresh, useCluster } from './cluster.js';

const SEED_SQL = `SELECT * FROM context_entries WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation') ORDER BY timestamp DESC LIMIT 10;`;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('PostgreSQL schema and migrations', () => {
  const cluster = useCluster();

  it('migrates a new schema once, records the version, and applies nothing on the next open', async () => {
    const schema = freshSchema();
    const first = await openPostgresStorage({ connectionString: cluster().connectionString, schema });
    expect(first.migration).toEqual({
      from: 0,
      to: PG_SCHEMA_VERSION,
      applied: [
        'initial',
        'recovery view index',
        'append attempt function',
        'spend topics index',
        'refusal topic index',
        'adapter runs',
      ],
    });
    const { rows } = await first.pool.query(`SELECT version, name FROM ${VERSION_TABLE} ORDER BY version`);
    expect(rows).toEqual([
      { version: 1, name: 'initial' },
      { version: 2, name: 'recovery view index' },
      { version: 3, name: 'append attempt function' },
      { version: 4, name: 'spend topics index' },
      { version: 5, name: 'refusal topic index' },
      { version: 6, name: 'adapter runs' },
    ]);
    await first.close();
    const second = await openPostgresStorage({ connectionString: cluster().connectionString, schema });
    expect(second.migration).toEqual({ from: PG_SCHEMA_VERSION, to: PG_SCHEMA_VERSION, applied: [] });
    await second.close();
  });

  it('workers opening a new schema together migrate it exactly once (advisory lock)', async () => {
    const schema = freshSchema();
    const opened = await Promise.all(
      Array.from({ length: 6 }, () =>
        openPostgresStorage({ connectionString: cluster().connectionString, schema }),
      ),
    );
    expect(opened.map((s) => s.migration.applied.length).sort()).toEqual([0, 0, 0, 0, 0, PG_SCHEMA_VERSION]);
    await Promise.all(opened.map((s) => s.close()));
  });

  it('refuses a schema newer than it knows with StorageError schema_too_new', async () => {
    const storage = await openFresh(cluster());
    await storage.pool.query(`INSERT INTO ${VERSION_TABLE} (version, name) VALUES (99, 'future')`);
    const schema = (await storage.pool.query('SELECT current_schema() AS s')).rows[0].s as string;
    await storage.close();
    const error = await rejection(
      openPostgresStorage({ connectionString: cluster().connectionString, schema }),
    );
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('schema_too_new');
    expect((error as Error).message).toMatch(/version 99/);
  });

  it('keeps the tables of the SQLite schema, with jsonb JSON columns', async () => {
    const storage = await openFresh(cluster());
    const { rows } = await storage.pool.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = current_schema() AND data_type = 'jsonb' ORDER BY table_name, column_name`,
    );
    expect(rows.map((r) => `${r.table_name}.${r.column_name}`)).toEqual([
      'attempts.blockers',
      'attempts.completed_work',
      'context_entries.metadata',
      'context_entries.related_tasks',
      'tasks.metadata',
    ]);
    await storage.close();
  });

  it("runs the seed's SQL verbatim, newest first, on the partial index", async () => {
    const storage = await openFresh(cluster());
    await storage.pool.query(`
      INSERT INTO context_entries (timestamp, entry_type, topic, content)
      SELECT n, 'decision', CASE WHEN n % 50 = 0 THEN 'loop_recovery' WHEN n % 50 = 1 THEN 'loop_escalation' ELSE 'notes' END, 'c'
      FROM generate_series(1, 20000) AS n`);
    await storage.pool.query('ANALYZE context_entries');
    const result = await storage.pool.query(SEED_SQL);
    expect(result.rows.map((r) => r.timestamp)).toEqual([
      20000, 19951, 19950, 19901, 19900, 19851, 19850, 19801, 19800, 19751,
    ]);
    expect(Object.keys(result.rows[0])).toEqual([
      'id',
      'timestamp',
      'entry_type',
      'topic',
      'content',
      'related_tasks',
      'confidence',
      'metadata',
    ]);
    const plan = await storage.pool.query(`EXPLAIN ${SEED_SQL}`);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('context_entries_recovery_time');
    expect(text).not.toMatch(/Seq Scan/);
    await storage.close();
  });

  it('the recoveries page lists step-level nudges and stops on the recovery view index', async () => {
    const storage = await openFresh(cluster());
    await storage.pool.query(`
      INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, metadata)
      SELECT n, 'decision', CASE WHEN n = 20001 THEN 'loop_stop' WHEN n % 50 = 0 THEN 'loop_recovery' ELSE 'notes' END, 'c',
        CASE WHEN n = 20001 THEN '["claude:s1"]'::jsonb ELSE '[]'::jsonb END,
        CASE WHEN n = 20001 THEN '{"sessionId": "s1"}'::jsonb ELSE '{}'::jsonb END
      FROM generate_series(1, 20001) AS n`);
    await storage.pool.query('ANALYZE context_entries');
    const reader = new PgStatusReader(storage);
    const spy: string[] = [];
    const query = storage.pool.query.bind(storage.pool);
    storage.pool.query = ((config: { text: string }, ...rest: unknown[]) => {
      spy.push(config.text);
      return (query as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof storage.pool.query;
    const page = await reader.recoveryPage({ limit: 2 });
    storage.pool.query = query;
    expect(page.recoveries.map((r) => [r.topic, r.action, r.taskId])).toEqual([
      ['loop_stop', 'stop', 'claude:s1'],
      ['loop_recovery', 'force_next', null],
    ]);
    expect(page.recoveries[0]?.metadata).toEqual({ sessionId: 's1' });
    const sql = spy.find((s) => s.includes('ORDER BY')) as string;
    const plan = await storage.pool.query(`EXPLAIN ${sql}`, [3]);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('context_entries_recovery_view_time');
    expect(text).not.toMatch(/Seq Scan/);
    await storage.close();
  });

  it('sessions54: shows a framework run loopguard did not stop with its tally, running until it ends, as SQLite does', async () => {
    const clock = new ManualClock(Date.now() - 60_000);
    const storage = await openFresh(cluster(), { clock });
    const start = clock.now();
    const started = (runId: string, adapter: string) =>
      storage.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 'run_started',
        content: `${adapter} run ${runId} started`,
        relatedTasks: [runId],
        metadata: { runId, adapter, projectDir: '/repo' },
      });
    await started('r1', 'ai-sdk');
    await started('r2', 'langgraph');
    const tally = { adapter: 'ai-sdk', runId: 'r1', projectDir: '/repo', at: start + 5000, toolCalls: 7 };
    const spend = { tokens: 1200, costUsd: 0.12, unpricedTokens: 0, budgetUsd: 1, budgetTokens: null };
    await storage.stateMachine.recordRunTally({ ...tally, ...spend, ended: false });
    const reader = new PgStatusReader(storage);
    const one = async (sessionId: string) => (await reader.sessionPage({ limit: 10, sessionId })).sessions[0];
    expect(await one('r1')).toMatchObject({
      verdict: 'running',
      toolCalls: 7,
      lastActive: start + 5000,
      startedAt: start,
      spend: { tokens: 1200, costUsd: 0.12 },
      budget: { maxCostUsd: 1, maxTokens: null },
    });
    await storage.stateMachine.recordRunTally({
      ...tally,
      ...spend,
      at: start + 9000,
      toolCalls: 9,
      ended: true,
    });
    expect(await one('r1')).toMatchObject({ verdict: 'clean', toolCalls: 9, lastActive: start + 9000 });
    expect(await one('r2')).toMatchObject({ verdict: 'running', toolCalls: null, spend: null });
    clock.advance(10_000);
    await storage.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'stop',
      relatedTasks: ['r1'],
      metadata: { runId: 'r1', adapter: 'ai-sdk', loopType: 'cycle', toolCall: 8 },
    });
    expect(await one('r1')).toMatchObject({ verdict: 'stopped', toolCalls: 8 });
    await expect(
      storage.stateMachine.recordRunTally({ ...tally, ...spend, runId: 'a\u0000b', ended: false }),
    ).rejects.toThrow(/tally/);
    await storage.close();
  });

  it('task_events is append-only', async () => {
    const storage = await openFresh(cluster());
    await storage.stateMachine.upsertTask({ id: 'T1' });
    await expect(storage.pool.query('DELETE FROM task_events')).rejects.toThrow(/append-only/);
    await expect(storage.pool.query("UPDATE task_events SET reason = 'x'")).rejects.toThrow(/append-only/);
    await storage.close();
  });
});

describe('openPostgresStorage options and connection errors', () => {
  it('rejects a bad option with a ConfigurationError naming it', async () => {
    await expect(openPostgresStorage({ schema: 'Bad-Name' })).rejects.toThrow(ConfigurationError);
    await expect(openPostgresStorage({ schema: 'Bad-Name' })).rejects.toThrow(/"schema"/);
    await expect(openPostgresStorage({ max: 0 })).rejects.toThrow(/"max"/);
    await expect(openPostgresStorage({ port: 70000 })).rejects.toThrow(/"port"/);
    await expect(openPostgresStorage({ conectionString: 'x' } as never)).rejects.toThrow(ConfigurationError);
  });

  it('fails with StorageError storage_unavailable when no server listens', async () => {
    const port = await freePort();
    const error = await rejection(
      openPostgresStorage({ host: '127.0.0.1', port, user: 'x', database: 'x', connectionTimeoutMs: 2000 }),
    );
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('storage_unavailable');
    expect((error as Error).message).toMatch(/unreachable/);
  });
});
