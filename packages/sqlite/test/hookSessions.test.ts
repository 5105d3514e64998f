import { InvalidInputError, ManualClock } from '@loopguard/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  migrate,
  openLoopGuardDatabase,
  SCHEMA_VERSION,
  SqliteHookSessionStore,
} from '../src/index.js';
import { ONE_CALL_SESSION } from './helpers.js';

const key = { agent: 'claude' as const, sessionId: 's1', projectDir: '/repo' };
const state = ONE_CALL_SESSION;

function makeStore() {
  const clock = new ManualClock(1_000);
  const database = openLoopGuardDatabase(':memory:', { clock });
  return { clock, database, store: new SqliteHookSessionStore({ db: database.db, clock }) };
}

describe('SqliteHookSessionStore', () => {
  it('creates a session, then hands the stored one to the next update', () => {
    const { clock, store } = makeStore();
    expect(store.update(key, (session) => ({ next: state, result: session }))).toBeNull();
    clock.advance(500);
    const seen = store.update(key, (session) => ({ next: { ...state, steps: 4 }, result: session }));
    expect(seen).toEqual({ ...state, createdAt: 1_000, updatedAt: 1_000 });
    expect(store.get(key)).toEqual({ ...state, steps: 4, createdAt: 1_000, updatedAt: 1_500 });
  });

  it('writes nothing when the update returns no next state', () => {
    const { store } = makeStore();
    expect(store.update(key, () => ({ result: 'silent' }))).toBe('silent');
    expect(store.get(key)).toBeNull();
  });

  it('rolls back the entries written in the update when it throws', () => {
    const { database, store } = makeStore();
    expect(() =>
      store.update(key, () => {
        database.stateMachine.addContextEntry({ entryType: 'learning', topic: 'loop_nudge', content: 'x' });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(database.stateMachine.listContextEntries()).toEqual([]);
    expect(store.get(key)).toBeNull();
  });

  it('peeks at a session without its snapshot: the same fields as get, null when it has no row', () => {
    const { store } = makeStore();
    expect(store.peek(key)).toBeNull();
    const big = { ...state, snapshot: `{"state":"${'x'.repeat(300_000)}"}`, enabled: false, toolCalls: 7 };
    store.update(key, () => ({ next: big, result: null }));
    const { snapshot, ...summary } = store.get(key) ?? {};
    expect(snapshot).toBe(big.snapshot);
    expect(store.peek(key)).toEqual(summary);
    expect(store.peek(key)).not.toHaveProperty('snapshot');
    expect(store.peek({ ...key, agent: 'gemini' })).toBeNull();
    expect(() => store.peek({ ...key, sessionId: '' })).toThrow(InvalidInputError);
  });

  it('keeps sessions apart by agent, session id and project directory', () => {
    const { store } = makeStore();
    store.update(key, () => ({ next: state, result: null }));
    expect(store.get({ ...key, agent: 'gemini' })).toBeNull();
    expect(store.get({ ...key, projectDir: '/other' })).toBeNull();
    expect(store.get(key)?.steps).toBe(2);
  });

  it("keeps Codex sessions and a subagent's run under its parent session", () => {
    const { store } = makeStore();
    const subagent = { ...key, agent: 'codex' as const, sessionId: 'agent-7' };
    store.update(subagent, () => ({
      next: { ...state, parentSessionId: 's1', agentType: 'Explore' },
      result: null,
    }));
    expect(store.get(subagent)).toMatchObject({ parentSessionId: 's1', agentType: 'Explore', toolCalls: 1 });
    expect(store.get(key)).toBeNull();
  });

  it('rejects a bad key, naming the field', () => {
    const { store } = makeStore();
    expect(() => store.get({ ...key, sessionId: '' })).toThrow(InvalidInputError);
    expect(() => store.get({ ...key, agent: 'cursor' as never })).toThrow(
      'key.agent must be one of "claude", "gemini", "codex"',
    );
  });

  it('a version 8 database is migrated: its sessions kept and listed, their texts no longer parsed by SQLite', () => {
    const db = new Database(':memory:');
    migrate(db, { migrations: MIGRATIONS.filter((m) => m.version <= 8) });
    const stored = {
      ...state,
      snapshot: '{"seal":"x","state":{}}',
      lastResults: '{"results":[],"seen":["a:1"]}',
    };
    new SqliteHookSessionStore({ db, clock: new ManualClock(1_000) }).update(
      { ...key, agent: 'codex', sessionId: 'agent-7' },
      () => ({ next: { ...stored, nudges: 1, parentSessionId: 's1', agentType: 'Explore' }, result: null }),
    );
    // version 8 refused a text that is not JSON
    expect(() => db.prepare(`UPDATE hook_sessions SET snapshot = 'not json {'`).run()).toThrow(
      /CHECK constraint/,
    );

    expect(migrate(db, { migrations: MIGRATIONS.filter((m) => m.version <= 9) }).applied).toEqual([
      'hook session text',
    ]);
    const store = new SqliteHookSessionStore({ db, clock: new ManualClock(2_000) });
    expect(store.get({ ...key, agent: 'codex', sessionId: 'agent-7' })).toEqual({
      ...stored,
      nudges: 1,
      parentSessionId: 's1',
      agentType: 'Explore',
      createdAt: 1_000,
      updatedAt: 1_000,
    });
    expect(
      db.prepare('SELECT agent, session_id, parent_session_id, nudges, verdict FROM agent_sessions').all(),
    ).toEqual([
      { agent: 'codex', session_id: 'agent-7', parent_session_id: 's1', nudges: 1, verdict: 'nudged' },
    ]);
    // its readers validate what they read (the detector's seal, the hook's memory): the store keeps the text as written
    store.update(key, () => ({ next: { ...state, snapshot: 'not json {', lastResults: '' }, result: null }));
    expect(store.get(key)).toMatchObject({ snapshot: 'not json {', lastResults: '' });
    expect(db.prepare('SELECT count(*) AS n FROM hook_sessions').get()).toEqual({ n: 2 });
  });

  it('a version 9 database is migrated: the recovery-view index covers the refused calls, the view counts them (issue 35)', () => {
    const db = new Database(':memory:');
    migrate(db, { migrations: MIGRATIONS.filter((m) => m.version <= 9) });
    // the index and the view as version 9 shipped them: no `call_refused`, no `refused_calls`
    db.exec(`DROP VIEW agent_sessions;
      DROP INDEX context_entries_recovery_view_time;
      CREATE INDEX context_entries_recovery_view_time ON context_entries (timestamp)
        WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation', 'loop_nudge', 'loop_stop', 'spend_warning', 'spend_stop');
      CREATE VIEW agent_sessions AS SELECT agent, session_id FROM hook_sessions;`);
    new SqliteHookSessionStore({ db, clock: new ManualClock(1_000) }).update(key, () => ({
      next: state,
      result: null,
    }));
    const refusal = db.prepare(
      `INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks)
       VALUES (?, 'decision', 'call_refused', 'Bash: rm -rf .loopguard — loopguard refused this call: …', ?)`,
    );
    refusal.run(1_500, JSON.stringify([`${key.agent}:${key.sessionId}`]));
    refusal.run(1_600, JSON.stringify(['claude:another-session']));

    expect(migrate(db).applied).toEqual([
      'refused calls',
      'adapter spend',
      'session end',
      'agent process',
      'adapter runs',
      'run limits',
      'runs by door',
    ]);
    const index = db
      .prepare(`SELECT sql FROM sqlite_master WHERE name = 'context_entries_recovery_view_time'`)
      .pluck()
      .get() as string;
    expect(index).toContain(`'call_refused'`);
    expect(db.prepare('SELECT session_id, refused_calls FROM agent_sessions').all()).toEqual([
      { session_id: key.sessionId, refused_calls: 1 },
    ]);
  });

  it("a version 10 database is migrated: the view reads a framework adapter's spend and budget from its spend stop, and its runs from their run_started entries (adapters44)", () => {
    const db = new Database(':memory:');
    migrate(db, { migrations: MIGRATIONS.filter((m) => m.version <= 10) });
    db.prepare(
      `INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, metadata)
       VALUES (1000, 'decision', 'spend_stop', 'this run reached its budget ($0.06 of $0.05)', '["T1"]', ?)`,
    ).run(
      JSON.stringify({
        adapter: 'ai-sdk',
        runId: 'r1',
        scope: 'session',
        reason: 'cap',
        spent: { replies: 3, tokens: 45, costUsd: 0.06, unpricedTokens: 0, unpricedModels: [] },
        caps: { maxCostUsd: 0.05 },
      }),
    );
    db.prepare(
      `INSERT INTO context_entries (timestamp, entry_type, topic, content, related_tasks, metadata)
       VALUES (500, 'learning', 'run_started', 'langgraph run r2 started', '["T2"]', ?)`,
    ).run(JSON.stringify({ adapter: 'langgraph', runId: 'r2' }));
    const spendOf = () =>
      db
        .prepare(
          'SELECT session_id, verdict, tokens, cost_usd, unpriced_tokens, budget_usd, budget_tokens FROM agent_sessions ORDER BY session_id',
        )
        .all();
    // the view as version 10 shipped it read an adapter's spend from no ledger: none
    db.exec(`DROP VIEW agent_sessions;
      CREATE VIEW agent_sessions AS SELECT json_extract(metadata, '$.runId') AS session_id FROM context_entries;`);
    expect(migrate(db).applied).toEqual([
      'adapter spend',
      'session end',
      'agent process',
      'adapter runs',
      'run limits',
      'runs by door',
    ]);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(spendOf()).toEqual([
      {
        session_id: 'r1',
        verdict: 'stopped_on_spend',
        tokens: 45,
        cost_usd: 0.06,
        unpriced_tokens: 0,
        budget_usd: 0.05,
        budget_tokens: null,
      },
      {
        session_id: 'r2',
        verdict: 'clean',
        tokens: null,
        cost_usd: null,
        unpriced_tokens: null,
        budget_usd: null,
        budget_tokens: null,
      },
    ]);
  });
});
