import { ManualClock } from '@loopguard/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  asyncSqliteStorage,
  type HookSessionRecord,
  MIGRATIONS,
  migrate,
  openLoopGuardDatabase,
  SqliteHookSessionStore,
  SqliteRunStore,
  SqliteSpendStore,
  SqliteStateMachine,
  SqliteStatusReader,
} from '../src/index.js';

const HOUR = 3_600_000;
const state: Omit<HookSessionRecord, 'createdAt' | 'updatedAt'> = {
  snapshot: '{}',
  lastResults: '[]',
  steps: 8,
  toolCalls: 4,
  parentSessionId: null,
  agentType: null,
  nudges: 0,
  stops: 0,
  enabled: true,
};

/** A database whose rows were written `ago` ms before the wall clock (the view judges `running` by it). */
function makeDatabase(ago = HOUR) {
  const clock = new ManualClock(Date.now() - ago);
  const database = openLoopGuardDatabase(':memory:', { clock });
  const hooks = new SqliteHookSessionStore({ db: database.db, clock });
  const session = (
    agent: 'claude' | 'gemini' | 'codex',
    sessionId: string,
    extra: Partial<typeof state> = {},
  ) =>
    hooks.update({ agent, sessionId, projectDir: '/repo' }, () => ({
      next: { ...state, ...extra },
      result: null,
    }));
  const entry = (topic: string, task: string, metadata: Record<string, unknown>) =>
    database.stateMachine.addContextEntry({
      entryType: topic.endsWith('stop') ? 'decision' : 'learning',
      topic,
      content: topic,
      relatedTasks: [task],
      metadata,
    });
  return { clock, database, session, entry, reader: new SqliteStatusReader(database) };
}

describe('agent_sessions: one session across doors', () => {
  it('judges hook sessions: stopped at its call, on spend, nudged, clean', async () => {
    const { session, entry, reader, database, clock } = makeDatabase();
    session('claude', 'stopped', { nudges: 1, stops: 1 });
    entry('loop_nudge', 'claude:stopped', { loopType: 'repeated_action', toolCall: 3 });
    entry('loop_stop', 'claude:stopped', { loopType: 'repeated_action', toolCall: 4 });
    session('gemini', 'spent');
    entry('spend_stop', 'gemini:spent', { reason: 'cap', scope: 'session' });
    new SqliteSpendStore({ db: database.db, clock }).update(['session:gemini:spent'], () => ({
      next: new Map([
        [
          'session:gemini:spent',
          {
            ledger: { totals: { tokens: 52_000, costUsd: 0.52, unpricedTokens: 0 } },
            offset: 10,
            caps: { maxCostUsd: 0.5 },
          },
        ],
      ]),
      result: null,
    }));
    session('codex', 'nudged', { nudges: 2 });
    session('claude', 'quiet');

    const { sessions } = await reader.sessionPage({ limit: 10 });
    const byId = Object.fromEntries(sessions.map((s) => [s.sessionId, s]));
    expect(byId.stopped).toMatchObject({
      agent: 'claude',
      verdict: 'stopped',
      toolCalls: 4,
      stop: { topic: 'loop_stop', kind: 'repeated_action', call: 4 },
      summary: 'stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge',
    });
    expect(byId.spent).toMatchObject({
      verdict: 'stopped_on_spend',
      spend: { tokens: 52_000, costUsd: 0.52 },
      budget: { maxCostUsd: 0.5, maxTokens: null },
    });
    expect(byId.spent?.summary).toContain('of $0.50');
    expect(byId.nudged).toMatchObject({ agent: 'codex', verdict: 'nudged', stop: null });
    expect(byId.quiet).toMatchObject({ verdict: 'clean', summary: 'no loop found, 4 tool calls ran' });
    expect(await reader.sessionCounts()).toEqual({
      byVerdict: { running: 0, clean: 1, nudged: 1, stopped: 1, stopped_on_spend: 1 },
      spendByAgent: [{ agent: 'gemini', tokens: 52_000, costUsd: 0.52, cost: '$0.52' }],
      spent: '$0.52',
    });
    expect(
      (await reader.sessionEntries({ agent: 'claude', sessionId: 'stopped' }, 10)).map((e) => e.topic),
    ).toEqual(['loop_nudge', 'loop_stop']);
  });

  it('says what it spent in dollars only as far as it could price it: a model without a price is named, a cent fraction never reads $0.00', async () => {
    const { session, reader, database, clock } = makeDatabase();
    const ledger = (key: string, totals: Record<string, number>) =>
      new SqliteSpendStore({ db: database.db, clock }).update([key], () => ({
        next: new Map([[key, { ledger: { totals }, offset: 10, caps: { maxCostUsd: 5 } }]]),
        result: null,
      }));
    session('codex', 'unpriced');
    ledger('session:codex:unpriced', { tokens: 120, costUsd: 0, unpricedTokens: 120 });
    session('gemini', 'cheap');
    ledger('session:gemini:cheap', { tokens: 60, costUsd: 0.00025, unpricedTokens: 0 });
    const { sessions } = await reader.sessionPage({ limit: 10 });
    const byId = Object.fromEntries(sessions.map((s) => [s.sessionId, s]));
    expect(byId.unpriced).toMatchObject({
      spendSummary: '$0.00 of $5.00 (and 120 tokens of unpriced models)',
      summary: 'no loop found, 4 tool calls ran, $0.00 of $5.00 (and 120 tokens of unpriced models)',
    });
    expect(byId.cheap?.spendSummary).toBe('$0.00025 of $5.00');
    expect(byId.cheap?.summary).toContain(byId.cheap?.spendSummary);
  });

  it('counts a session active in the last 10 minutes as running until it is stopped', async () => {
    const { session, entry, reader } = makeDatabase(60_000);
    session('claude', 'live', { nudges: 1 });
    session('claude', 'ended', { stops: 1 });
    entry('loop_stop', 'claude:ended', { loopType: 'same_error', toolCall: 6 });
    const verdicts = (await reader.sessionPage({ limit: 10 })).sessions.map((s) => [s.sessionId, s.verdict]);
    expect(verdicts.sort()).toEqual([
      ['ended', 'stopped'],
      ['live', 'running'],
    ]);
  });

  it('ends a session its agent said ended (session_ended), its subagents with it, until a later event resumes it', async () => {
    const { session, entry, reader, clock } = makeDatabase(60_000);
    session('claude', 'main', { nudges: 1 });
    session('claude', 'a1', { parentSessionId: 'main', agentType: 'Explore' });
    session('claude', 'other');
    clock.advance(1000);
    entry('session_ended', 'claude:main', { sessionId: 'main', agent: 'claude' });
    const verdicts = async () =>
      Object.fromEntries(
        (await reader.sessionPage({ limit: 10 })).sessions.map((s) => [s.sessionId, s.verdict]),
      );
    expect(await verdicts()).toEqual({ main: 'nudged', a1: 'clean', other: 'running' });
    clock.advance(1000);
    session('claude', 'main', { nudges: 1 }); // resumed: an event after its end
    expect(await verdicts()).toEqual({ main: 'running', a1: 'clean', other: 'running' });
  });

  it("lists loopguard run's runs and the framework adapters' runs beside the hook sessions", async () => {
    const { database, clock, entry, reader } = makeDatabase();
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    runs.updateRun('r1', { status: 'budget_spent' });
    runs.createRun({ id: 'r2', command: ['codex', 'exec'], options: {}, cwd: '/repo' });
    runs.updateRun('r2', { status: 'completed' });
    entry('loop_nudge', 'T1', { runId: 'r2', loopType: 'same_error', toolCall: 3 });
    entry('loop_stop', 'T9', { runId: 'a1', adapter: 'ai-sdk', loopType: 'cycle', toolCall: 7 });
    // r3: its spend guard's stop (`run --max-cost-usd`) ends it `budget_spent` too, with its entry
    runs.createRun({ id: 'r3', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    runs.updateRun('r3', { status: 'budget_spent' });
    entry('spend_stop', 'r3', { runId: 'r3', scope: 'session', reason: 'cap' });
    const sessions = (await reader.sessionPage({ limit: 10 })).sessions;
    expect(sessions.map((s) => [s.agent, s.sessionId, s.verdict]).sort()).toEqual([
      ['ai-sdk', 'a1', 'stopped'],
      ['run', 'r1', 'stopped'],
      ['run', 'r2', 'nudged'],
      ['run', 'r3', 'stopped_on_spend'],
    ]);
    // r1 ran out of its iterations or time (`budget_spent` without a spend stop, `run` exit 5):
    // loopguard's guard stopped it, no budget in dollars or tokens did (qa54)
    expect(sessions.find((s) => s.sessionId === 'r1')?.summary).toBe(
      'stopped by loopguard (run reached its iteration or time limit)',
    );
    expect(sessions.find((s) => s.sessionId === 'r3')?.summary).toBe('stopped on spend (budget reached)');
    expect((await reader.sessionCounts()).byVerdict).toMatchObject({ stopped: 2, stopped_on_spend: 1 });
  });

  it("pg68: a version 15 database is migrated: a run's stop and counts are its own door's, when another door's run has the same id", async () => {
    const db = new Database(':memory:');
    migrate(db, { migrations: MIGRATIONS.filter((m) => m.version <= 15) });
    const clock = new ManualClock(Date.now() - HOUR);
    const entries = new SqliteStateMachine({ db, clock });
    const entry = (topic: string, metadata: Record<string, unknown>) => {
      entries.addContextEntry({
        entryType: 'decision',
        topic,
        content: topic,
        relatedTasks: ['T1'],
        metadata,
      });
      clock.advance(1000);
    };
    new SqliteRunStore({ db, clock }).createRun({
      id: 'same',
      command: ['claude', '-p'],
      options: {},
      cwd: '/repo',
    });
    entry('run_started', { adapter: 'langgraph', runId: 'same' });
    entry('loop_stop', { adapter: 'ai-sdk', runId: 'same', loopType: 'cycle', toolCall: 5 });
    const read = () =>
      (
        db
          .prepare('SELECT agent, stops, stop_call, verdict FROM agent_sessions ORDER BY agent')
          .all() as Record<string, unknown>[]
      ).map((row) => Object.values(row));
    // version 15 read the ai-sdk run's stop as the langgraph run's and the `loopguard run`'s too
    expect(read()).toEqual([
      ['ai-sdk', 1, 5, 'stopped'],
      ['langgraph', 0, 5, 'stopped'],
      ['run', 1, 5, 'stopped'],
    ]);
    expect(migrate(db).applied).toEqual(['runs by door']);
    expect(read()).toEqual([
      ['ai-sdk', 1, 5, 'stopped'],
      ['langgraph', 0, null, 'clean'],
      ['run', 0, null, 'running'],
    ]);
  });

  it('sessions59: a run whose stream watcher stopped an iteration reads running while it goes on, stopped once it ended', async () => {
    const { database, clock, entry, reader } = makeDatabase();
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    entry('loop_stop', 'r1', { runId: 'r1', iteration: 1, loopType: 'same_error', toolCall: 4 });
    const verdict = async () => (await reader.sessionPage({ limit: 10 })).sessions[0];
    expect(await verdict()).toMatchObject({ verdict: 'running', summary: expect.stringMatching(/^running/) });
    runs.updateRun('r1', { status: 'budget_spent' });
    expect((await verdict())?.summary).toMatch(
      /^stopped by loopguard at call 4 of iteration 1 \(same error\)/,
    );
  });

  // sessions60: the call counts the iteration's agent session; a later iteration that completed the
  // run left the row reading as if loopguard had ended the run at that call
  it('a run whose stopped iteration is followed by a completed one names the iteration, and says the run completed', async () => {
    const { database, clock, entry, reader } = makeDatabase();
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    entry('loop_nudge', 'r1', { runId: 'r1', iteration: 2, loopType: 'same_error', toolCall: 3 });
    entry('loop_stop', 'r1', { runId: 'r1', iteration: 2, loopType: 'same_error', toolCall: 4 });
    runs.updateRun('r1', { status: 'completed' });
    const [run] = (await reader.sessionPage({ limit: 10 })).sessions;
    expect(run).toMatchObject({ verdict: 'stopped', stop: { call: 4, iteration: 2 } });
    expect(run?.summary).toBe(
      'stopped by loopguard at call 4 of iteration 2 (same error), then the run completed, 1 nudge',
    );
  });

  // polish66: a run paused (or ended) after an iteration's stop read only the stop: not that it is
  // paused, nor how to go on, as `run` says it when it pauses
  it('a run paused after a mid-run stop says so and how to go on, as run said it; an ended one says how it ended', async () => {
    const { database, clock, entry, reader } = makeDatabase();
    const runs = new SqliteRunStore({ db: database.db, clock });
    const stopped = (id: string, status: 'paused' | 'aborted' | 'budget_spent', reason: string) => {
      runs.createRun({ id, command: ['./agent.sh'], options: {}, cwd: '/repo' });
      entry('loop_stop', id, { runId: id, iteration: 1, loopType: 'same_error', toolCall: 4 });
      runs.updateRun(id, { status, reason });
      clock.advance(1000);
    };
    stopped(
      'r1',
      'paused',
      'step_loop_stopped: stopped mid-run by the loop detector: same_error (2 in a row, threshold 2)',
    );
    stopped(
      'r2',
      'aborted',
      'step_loop_stopped: stopped mid-run by the loop detector: same_error (2 in a row, threshold 2)',
    );
    stopped('r3', 'budget_spent', 'Iteration 11 exceeds maximum of 10.');
    const summary = async (id: string) =>
      (await reader.sessionPage({ limit: 10 })).sessions.find((s) => s.sessionId === id)?.summary;
    expect(await summary('r1')).toBe(
      'stopped by loopguard at call 4 of iteration 1 (same error), then the run paused (loopguard resume r1 continues it)',
    );
    expect(await summary('r2')).toBe(
      'stopped by loopguard at call 4 of iteration 1 (same error), then the run aborted (loopguard resume r2 continues it)',
    );
    expect(await summary('r3')).toBe(
      'stopped by loopguard at call 4 of iteration 1 (same error), then the run reached its iteration limit of 10',
    );
  });

  it("story56: says why a run's breaker paused it, and its status in words", async () => {
    const { database, clock, reader } = makeDatabase();
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    // as the breaker writes it: its signal's name, then the words
    runs.updateRun('r1', {
      status: 'paused',
      reason: 'no_file_changes: no files changed (3 in a row, threshold 3)',
    });
    clock.advance(1000);
    runs.createRun({ id: 'r2', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    runs.updateRun('r2', { status: 'budget_spent', reason: 'Iteration 3 exceeds maximum of 2.' });
    const sessions = (await reader.sessionPage({ limit: 10 })).sessions;
    // sess68: paused by its breaker with no mid-run stop, it says how to go on too, as run said it
    expect(sessions.find((s) => s.sessionId === 'r1')?.summary).toBe(
      'stopped by loopguard (run paused: no files changed (3 in a row, threshold 3)) (loopguard resume r1 continues it)',
    );
    // polish62: which limit, from the guard's own message
    expect(sessions.find((s) => s.sessionId === 'r2')?.summary).toBe(
      'stopped by loopguard (run reached its iteration limit of 2)',
    );
    // the header's newest run: its status in words, not the stored name
    expect(await reader.latestRun()).toMatchObject({
      runId: 'r2',
      runStatus: 'budget_spent',
      statusText: 'limit reached',
    });
  });

  it("qa64: an aborted run's words name its blocked task without the signal's name, and no task when it had none", async () => {
    const { database, clock, reader } = makeDatabase();
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    // as `--on-stagnation abort` stores it with a task (`--task`, a plan item)
    runs.updateRun('r1', {
      status: 'aborted',
      reason: 'task Write the parser blocked: no_file_changes: no files changed (2 in a row, threshold 2)',
    });
    clock.advance(1000);
    runs.createRun({ id: 'r2', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    runs.updateRun('r2', {
      status: 'aborted',
      reason: 'no_file_changes: no files changed (2 in a row, threshold 2)',
    });
    const sessions = (await reader.sessionPage({ limit: 10 })).sessions;
    expect(sessions.find((s) => s.sessionId === 'r1')?.summary).toBe(
      'stopped by loopguard (run aborted: task Write the parser blocked: no files changed (2 in a row, threshold 2)) (loopguard resume r1 continues it)',
    );
    expect(sessions.find((s) => s.sessionId === 'r2')?.summary).toBe(
      'stopped by loopguard (run aborted: no files changed (2 in a row, threshold 2)) (loopguard resume r2 continues it)',
    );
  });

  it('sessions54: shows a framework run loopguard did not stop with its tally (tool calls, dollars, budget), running until it ends', async () => {
    const { database, clock, entry, reader } = makeDatabase(60_000);
    const start = clock.now();
    entry('run_started', 'r1', { runId: 'r1', adapter: 'ai-sdk', projectDir: '/repo' });
    entry('run_started', 'r2', { runId: 'r2', adapter: 'langgraph', projectDir: '/repo' });
    const tally = { adapter: 'ai-sdk', runId: 'r1', projectDir: '/repo', at: start + 5000, toolCalls: 7 };
    const spend = { tokens: 1200, costUsd: 0.12, unpricedTokens: 0, budgetUsd: 1, budgetTokens: null };
    database.stateMachine.recordRunTally({ ...tally, ...spend, ended: false });
    const one = async (sessionId: string) => (await reader.sessionPage({ limit: 10, sessionId })).sessions[0];
    expect(await one('r1')).toMatchObject({
      verdict: 'running',
      toolCalls: 7,
      lastActive: start + 5000,
      startedAt: start,
      spend: { tokens: 1200, costUsd: 0.12 },
      budget: { maxCostUsd: 1, maxTokens: null },
    });
    // the asynchronous twin (what a SharedLoopDetector's embedder hands the adapters) writes it too
    await asyncSqliteStorage(database).stateMachine.recordRunTally?.({
      ...tally,
      ...spend,
      at: start + 9000,
      toolCalls: 9,
      ended: true,
    });
    expect(await one('r1')).toMatchObject({ verdict: 'clean', toolCalls: 9, lastActive: start + 9000 });
    // a run with no tally (a store of one's own, or before its first write) lists as before
    expect(await one('r2')).toMatchObject({ verdict: 'running', toolCalls: null, spend: null });
    // a stop's own figures come first: the stop ended the run
    clock.advance(10_000);
    entry('loop_stop', 'r1', { runId: 'r1', adapter: 'ai-sdk', loopType: 'cycle', toolCall: 8 });
    expect(await one('r1')).toMatchObject({ verdict: 'stopped', toolCalls: 8 });
    expect(() =>
      database.stateMachine.recordRunTally({ ...tally, ...spend, toolCalls: -1, ended: false }),
    ).toThrow(/tally\.toolCalls/);
  });

  it("lists a session's entries with its subagents' (each names its run): what loopguard did in the session", async () => {
    const { session, entry, reader } = makeDatabase();
    session('claude', 'main');
    session('claude', 'a1b2', { parentSessionId: 'main', agentType: 'Explore', nudges: 1, stops: 1 });
    session('claude', 'other');
    entry('loop_nudge', 'claude:a1b2', {
      loopType: 'same_error',
      toolCall: 3,
      agent: 'claude',
      sessionId: 'a1b2',
      parentSessionId: 'main',
    });
    entry('loop_stop', 'claude:a1b2', {
      loopType: 'same_error',
      toolCall: 4,
      agent: 'claude',
      sessionId: 'a1b2',
      parentSessionId: 'main',
    });
    entry('spend_warning', 'claude:main', { agent: 'claude', sessionId: 'main', subagentId: 'a1b2' });
    entry('loop_stop', 'claude:other', {
      loopType: 'same_error',
      toolCall: 4,
      agent: 'claude',
      sessionId: 'other',
    });
    entry('loop_stop', 'codex:x', {
      loopType: 'same_error',
      agent: 'codex',
      sessionId: 'x',
      parentSessionId: 'main',
    });
    const topics = async (sessionId: string) =>
      (await reader.sessionEntries({ agent: 'claude', sessionId }, 10)).map((e) => [e.topic, e.taskId]);
    expect(await topics('main')).toEqual([
      ['loop_nudge', 'claude:a1b2'],
      ['loop_stop', 'claude:a1b2'],
      ['spend_warning', 'claude:main'],
    ]);
    expect(await topics('a1b2')).toEqual([
      ['loop_nudge', 'claude:a1b2'],
      ['loop_stop', 'claude:a1b2'],
    ]);
  });

  it("lists a session's own entries only, when another door's session has the same id", async () => {
    const { session, entry, reader } = makeDatabase();
    session('claude', 'same', { stops: 1 });
    session('codex', 'same', { nudges: 1 });
    entry('loop_stop', 'claude:same', { runId: 'same', agent: 'claude', toolCall: 4 });
    entry('loop_nudge', 'codex:same', { runId: 'same', agent: 'codex', toolCall: 3 });
    entry('loop_nudge', 'T1', { runId: 'same', adapter: 'ai-sdk', toolCall: 2 });
    const topics = async (agent: string) =>
      (await reader.sessionEntries({ agent, sessionId: 'same' }, 10)).map(
        (e) => `${e.topic}@${e.metadata.toolCall}`,
      );
    expect(await topics('claude')).toEqual(['loop_stop@4']);
    expect(await topics('codex')).toEqual(['loop_nudge@3']);
    expect(await topics('ai-sdk')).toEqual(['loop_nudge@2']);
  });

  it('pages newest first with a cursor, and filters by id and verdict', async () => {
    const { session, reader, clock } = makeDatabase();
    for (const id of ['a', 'b', 'c']) {
      session('claude', id);
      clock.advance(1_000);
    }
    const first = await reader.sessionPage({ limit: 2 });
    expect(first.sessions.map((s) => s.sessionId)).toEqual(['c', 'b']);
    const second = await reader.sessionPage({ limit: 2, cursor: first.nextCursor ?? undefined });
    expect(second).toMatchObject({ nextCursor: null, sessions: [{ sessionId: 'a' }] });
    expect((await reader.sessionPage({ limit: 5, sessionId: 'b' })).sessions).toHaveLength(1);
    expect((await reader.sessionPage({ limit: 5, verdict: 'stopped' })).sessions).toEqual([]);
    await expect(reader.sessionPage({ limit: 2, cursor: 'nope' })).rejects.toThrow('cursor');
  });
});
