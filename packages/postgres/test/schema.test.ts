import { readFileSync } from 'node:fs';
import { ConfigurationError, ManualClock, StorageError } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import {
  migratePostgres,
  openPostgresStorage,
  PG_MIGRATIONS,
  PG_SCHEMA_VERSION,
  PgStatusReader,
  VERSION_TABLE,
} from '../src/index.js';
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
        'agent sessions',
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
      { version: 7, name: 'agent sessions' },
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

  it("pg68: a version 6 schema is migrated: the view agent_sessions answers docs/sql.md's queries as SQLite's does", async () => {
    const schema = freshSchema();
    const clock = new ManualClock(Date.now() - 3_600_000);
    const connectionString = cluster().connectionString;
    const old = await openPostgresStorage({ connectionString, schema, clock, migrate: false });
    const client = await old.pool.connect();
    await migratePostgres(client, schema, PG_MIGRATIONS.slice(0, 6));
    client.release();
    const entry = async (topic: string, metadata: Record<string, unknown>) => {
      await old.stateMachine.addContextEntry({ entryType: 'decision', topic, content: topic, metadata });
      clock.advance(1000);
    };
    await entry('run_started', { adapter: 'ai-sdk', runId: 'r1', projectDir: '/repo' });
    await entry('loop_stop', { adapter: 'ai-sdk', runId: 'r1', loopType: 'cycle', toolCall: 5 });
    const spent = { replies: 3, tokens: 45, costUsd: 0.06, unpricedTokens: 0 };
    await entry('spend_stop', {
      adapter: 'langgraph',
      runId: 'r2',
      reason: 'cap',
      toolCall: 4,
      spent,
      caps: { maxCostUsd: 0.05 },
    });
    await entry('run_started', { adapter: 'langgraph', runId: 'r3', projectDir: '/repo' });
    await expect(old.pool.query('SELECT * FROM agent_sessions')).rejects.toThrow(/does not exist/);
    await old.close();

    const storage = await openPostgresStorage({ connectionString, schema, clock });
    expect(storage.migration.applied).toEqual(['agent sessions']);
    const markdown = readFileSync(new URL('../../../docs/sql.md', import.meta.url), 'utf8');
    const [queries] = [...markdown.matchAll(/```postgresql\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    const statements = (queries ?? '')
      .split(';')
      .map((q) => q.trim())
      .filter((q) => q.replace(/--.*$/gm, '').trim() !== '');
    expect(statements).toHaveLength(3);
    const results = [];
    for (const statement of statements) results.push((await storage.pool.query(statement)).rows);
    expect(
      results[0]?.map((r) => [
        r.agent,
        r.session_id,
        r.verdict,
        r.stop_kind,
        r.stop_call,
        r.tool_calls,
        r.usd,
        r.budget_usd,
      ]),
    ).toEqual([
      ['langgraph', 'r2', 'stopped_on_spend', 'cap', 4, 4, '0.06', 0.05],
      ['ai-sdk', 'r1', 'stopped', 'cycle', 5, 5, null, null],
    ]);
    expect(Object.fromEntries(results[1]?.map((r) => [r.verdict, Number(r.count)]) ?? [])).toEqual({
      stopped: 1,
      stopped_on_spend: 1,
      clean: 1,
    });
    expect(results[2]?.find((r) => r.agent === 'langgraph')).toMatchObject({ tokens: '45', usd: '0.06' });
    // the doors read the view: the same verdicts
    const page = await new PgStatusReader(storage).sessionPage({ limit: 10 });
    expect(page.sessions.map((v) => [v.sessionId, v.summary])).toEqual([
      ['r3', 'no loop found'],
      ['r2', 'stopped on spend at call 4 (budget reached), 4 tool calls ran, $0.06 of $0.05'],
      ['r1', 'stopped by loopguard at call 5 (repeated sequence of calls), 5 tool calls ran'],
    ]);
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
