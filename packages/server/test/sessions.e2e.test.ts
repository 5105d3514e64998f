import { afterEach, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { HOOK_SESSIONS, hooksOnlyDatabase } from './hookSessions.js';
import { STORE_KINDS, type TestStore, useStores } from './stores.js';

let server: RunningStatusServer | undefined;
let cleanup: (() => unknown) | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup?.();
  cleanup = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, checked by the assertions
async function getJson(path: string): Promise<{ status: number; body: any }> {
  if (server === undefined) throw new Error('no server');
  const response = await fetch(new URL(path, server.url));
  return { status: response.status, body: await response.json() };
}

async function getText(path: string): Promise<string> {
  if (server === undefined) throw new Error('no server');
  return (await fetch(new URL(path, server.url))).text();
}

async function serveHooksOnly(): Promise<void> {
  const store = hooksOnlyDatabase();
  cleanup = store.cleanup;
  server = await startStatusServer({ reader: store.reader, port: 0, clock: store.clock, cacheMs: 0 });
}

describe('sessions on a database written only by the hooks', () => {
  it('/status carries the newest sessions with their verdicts and every session counted by verdict', async () => {
    await serveHooksOnly();
    const { status, body } = await getJson('/status?sessionLimit=3');
    expect(status).toBe(200);
    expect(body.tasks).toEqual([]);
    expect(body.sessions.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([
      HOOK_SESSIONS.stopped,
      HOOK_SESSIONS.spent,
      HOOK_SESSIONS.nudged,
    ]);
    expect(body.sessions.sessions[0]).toMatchObject({
      agent: 'claude',
      projectDir: '/home/dev/shop',
      toolCalls: 4,
      nudges: 1,
      verdict: 'stopped',
      stop: { topic: 'loop_stop', kind: 'same_error', call: 4 },
      summary: 'stopped by loopguard at call 4 (same error), 4 tool calls ran, 1 nudge',
    });
    expect(body.sessions.nextCursor).toEqual(expect.any(String));
    expect(body.sessions.counts).toEqual({
      running: 0,
      clean: 1,
      nudged: 1,
      stopped: 1,
      stopped_on_spend: 1,
    });
    expect(body.sessions.spendByAgent).toEqual([
      { agent: 'gemini', tokens: 52_000, costUsd: 0.52, cost: '$0.52' },
    ]);
    expect(body.sessions.spent).toBe('$0.52');
    const defaults = await getJson('/status');
    expect(defaults.body.sessions.sessions).toHaveLength(4);
    expect(defaults.body.sessions.nextCursor).toBeNull();
    const next = await getJson(`/sessions?cursor=${encodeURIComponent(body.sessions.nextCursor)}`);
    expect(next.body.sessions.map((s: { verdict: string }) => s.verdict)).toEqual(['clean']);
  });

  it('/sessions pages newest first and filters by verdict and id', async () => {
    await serveHooksOnly();
    const first = await getJson('/sessions?limit=2');
    expect(first.body.sessions.map((s: { verdict: string }) => s.verdict)).toEqual([
      'stopped',
      'stopped_on_spend',
    ]);
    expect(first.body.sessions[1]).toMatchObject({
      agent: 'gemini',
      spend: { tokens: 52_000, costUsd: 0.52 },
      budget: { maxCostUsd: 0.5, maxTokens: null },
      stop: { topic: 'spend_stop', kind: 'cap', call: 12 },
    });
    const second = await getJson(`/sessions?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({
      sessions: [{ verdict: 'nudged', agent: 'codex' }, { verdict: 'clean' }],
      nextCursor: null,
    });
    const nudged = await getJson('/sessions?verdict=nudged');
    expect(nudged.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([
      HOOK_SESSIONS.nudged,
    ]);
    const byId = await getJson(`/sessions?sessionId=${HOOK_SESSIONS.clean}`);
    expect(byId.body.sessions).toMatchObject([
      { verdict: 'clean', toolCalls: 9, summary: 'no loop found, 9 tool calls ran' },
    ]);
  });

  it("/sessions/entries lists a session's nudge and stop with their evidence, oldest first", async () => {
    await serveHooksOnly();
    const { status, body } = await getJson(
      `/sessions/entries?agent=claude&sessionId=${HOOK_SESSIONS.stopped}`,
    );
    expect(status).toBe(200);
    expect(body.agent).toBe('claude');
    expect(body.entries.map((e: { action: string }) => e.action)).toEqual(['nudge', 'stop']);
    expect(body.entries[1].metadata.evidence).toHaveLength(4);
    const spend = await getJson(`/sessions/entries?agent=gemini&sessionId=${HOOK_SESSIONS.spent}&limit=1`);
    expect(spend.body.entries.map((e: { topic: string }) => e.topic)).toEqual(['spend_warning']);
    const none = await getJson('/sessions/entries?agent=codex&sessionId=never-seen');
    expect(none.body.entries).toEqual([]);
  });

  it('/metrics carries sessions by verdict and spend per agent in tokens and dollars', async () => {
    await serveHooksOnly();
    const text = await getText('/metrics');
    for (const line of [
      'loopguard_sessions{verdict="running"} 0',
      'loopguard_sessions{verdict="clean"} 1',
      'loopguard_sessions{verdict="nudged"} 1',
      'loopguard_sessions{verdict="stopped"} 1',
      'loopguard_sessions{verdict="stopped_on_spend"} 1',
      'loopguard_session_spend_tokens{agent="gemini"} 52000',
      'loopguard_session_spend_dollars{agent="gemini"} 0.52',
      'loopguard_recoveries_total{action="stop"} 1',
    ])
      expect(text.split('\n')).toContain(line);
  });

  it.each([
    ['/sessions?verdict=looping', 'verdict must be one of running, clean, nudged, stopped, stopped_on_spend'],
    ['/sessions?limit=0', 'limit must be an integer from 1 to 1000'],
    ['/sessions?page=2', 'unknown query parameter "page"'],
    ['/sessions?cursor=nope', 'cursor'],
    ['/sessions?sessionId=a%00b', 'sessionId must not contain control characters'],
    ['/sessions?verdict=clean&verdict=nudged', 'query parameter verdict is given twice'],
    ['/sessions/entries?sessionId=s1', 'query parameter agent is required'],
    ['/sessions/entries?agent=claude', 'query parameter sessionId is required'],
    ['/sessions/entries?agent=claude&sessionId=', 'sessionId must be 1 to 512 characters'],
    ['/sessions/entries?agent=claude&sessionId=s1&limit=1001', 'limit must be an integer from 1 to 1000'],
    ['/status?sessionLimit=x', 'sessionLimit must be an integer from 1 to 1000'],
  ])('answers %s with 400 naming the parameter', async (path, message) => {
    await serveHooksOnly();
    const { status, body } = await getJson(path);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
  });
});

describe('sessions on an empty database', () => {
  it('has no sessions, zero of each verdict, and no spend series', async () => {
    const store = hooksOnlyDatabase();
    cleanup = store.cleanup;
    store.database.db.exec(
      'DELETE FROM hook_sessions; DELETE FROM context_entries; DELETE FROM spend_ledgers',
    );
    server = await startStatusServer({ reader: store.reader, port: 0, clock: store.clock });
    const { body } = await getJson('/status');
    expect(body.sessions).toEqual({
      sessions: [],
      nextCursor: null,
      counts: { running: 0, clean: 0, nudged: 0, stopped: 0, stopped_on_spend: 0 },
      spendByAgent: [],
      spent: '',
    });
    expect((await getJson('/sessions')).body).toEqual({ sessions: [], nextCursor: null });
    const text = await getText('/metrics');
    expect(text).toContain('loopguard_sessions{verdict="stopped"} 0');
    expect(text).not.toMatch(/^loopguard_session_spend_dollars\{/m);
  });

  it("a call loopguard refused: the session's summary counts it, its entries list it with the command (issue 35)", async () => {
    const store = hooksOnlyDatabase();
    cleanup = store.cleanup;
    // as the hook writes it (packages/cli: refusalEntry)
    store.database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'call_refused',
      content: 'Bash: rm -rf .loopguard — loopguard refused this call: …',
      relatedTasks: [`claude:${HOOK_SESSIONS.clean}`],
      metadata: {
        agent: 'claude',
        sessionId: HOOK_SESSIONS.clean,
        tool: 'Bash',
        command: 'rm -rf .loopguard',
        toolCall: 10,
      },
    });
    server = await startStatusServer({ reader: store.reader, port: 0, clock: store.clock, cacheMs: 0 });
    const { body } = await getJson(`/sessions?sessionId=${HOOK_SESSIONS.clean}`);
    expect(body.sessions).toMatchObject([
      { refusedCalls: 1, verdict: 'clean', summary: 'no loop found, 9 tool calls ran, 1 call refused' },
    ]);
    const entries = await getJson(`/sessions/entries?agent=claude&sessionId=${HOOK_SESSIONS.clean}`);
    expect(entries.body.entries).toMatchObject([
      {
        topic: 'call_refused',
        action: 'call_refused',
        metadata: { command: 'rm -rf .loopguard', toolCall: 10 },
      },
    ]);
  });
});

const openStore = useStores();

/** The `spend_stop` entry an adapter writes when its run `run-7` spent `spent` against a `cap` in dollars. */
function spendStop(ctx: TestStore, spent: Record<string, unknown>, cap: number) {
  return ctx.addContextEntry({
    entryType: 'decision',
    topic: 'spend_stop',
    content: 'this run reached its budget',
    relatedTasks: ['T1'],
    metadata: {
      adapter: 'ai-sdk',
      runId: 'run-7',
      scope: 'session',
      reason: 'cap',
      spent,
      caps: { maxCostUsd: cap },
    },
  });
}

describe.each(STORE_KINDS)("a framework adapter's runs as sessions on %s", (kind) => {
  let ctx: TestStore;
  afterEach(async () => {
    await ctx?.cleanup();
  });

  it('lists the run, its entries and its verdict in /sessions, /sessions/entries and /metrics', async () => {
    ctx = await openStore(kind);
    await ctx.addContextEntry({
      entryType: 'learning',
      topic: 'run_started',
      content: 'ai-sdk run run-42 started',
      relatedTasks: ['T9'],
      metadata: { adapter: 'ai-sdk', runId: 'run-42', projectDir: '/repo' },
    });
    for (const [topic, toolCall] of [
      ['loop_nudge', 5],
      ['loop_stop', 7],
    ] as const) {
      await ctx.addContextEntry({
        entryType: topic === 'loop_stop' ? 'decision' : 'learning',
        topic,
        content: `${topic} of the run`,
        relatedTasks: ['T9'],
        metadata: { adapter: 'ai-sdk', runId: 'run-42', loopType: 'cycle', toolCall },
      });
      ctx.clock.advance(1000);
    }
    server = await startStatusServer({ reader: ctx.reader, port: 0, clock: ctx.clock });
    const { body } = await getJson('/sessions');
    expect(body.sessions).toMatchObject([
      {
        agent: 'ai-sdk',
        sessionId: 'run-42',
        // its project, from its run_started entry; its tool calls, those its stop ended it at
        projectDir: '/repo',
        toolCalls: 7,
        verdict: 'stopped',
        stop: { kind: 'cycle', call: 7 },
        nudges: 1,
      },
    ]);
    const entries = await getJson('/sessions/entries?agent=ai-sdk&sessionId=run-42');
    expect(entries.body.entries.map((e: { action: string }) => e.action)).toEqual(['nudge', 'stop']);
    expect(await getText('/metrics')).toContain('loopguard_sessions{verdict="stopped"} 1');
  });

  it('sessions54: shows a run not stopped with the tool calls and dollars of its tally, the same on every door', async () => {
    ctx = await openStore(kind);
    await ctx.addContextEntry({
      entryType: 'learning',
      topic: 'run_started',
      content: 'ai-sdk run run-43 started',
      relatedTasks: ['T9'],
      metadata: { adapter: 'ai-sdk', runId: 'run-43', projectDir: '/repo' },
    });
    ctx.clock.advance(5000);
    await ctx.recordRunTally({
      adapter: 'ai-sdk',
      runId: 'run-43',
      projectDir: '/repo',
      at: ctx.clock.now(),
      toolCalls: 7,
      tokens: 1200,
      costUsd: 0.12,
      unpricedTokens: 0,
      budgetUsd: 1,
      budgetTokens: null,
      ended: true,
    });
    server = await startStatusServer({ reader: ctx.reader, port: 0, clock: ctx.clock });
    const { body } = await getJson('/sessions');
    expect(body.sessions).toMatchObject([
      {
        agent: 'ai-sdk',
        sessionId: 'run-43',
        toolCalls: 7,
        verdict: 'clean',
        lastActive: ctx.clock.now(),
        summary: 'no loop found, 7 tool calls ran, $0.12 of $1.00',
      },
    ]);
  });

  it('says what a run stopped on spend had spent against its budget, as its spend_stop entry recorded it (adapters44)', async () => {
    ctx = await openStore(kind);
    const spent = { replies: 3, tokens: 45, costUsd: 0.06, unpricedTokens: 0, unpricedModels: [] };
    await ctx.addContextEntry({
      entryType: 'learning',
      topic: 'spend_warning',
      content: 'you have spent $0.04 of $0.05 on this run (80 %)',
      relatedTasks: ['T1'],
      metadata: {
        adapter: 'ai-sdk',
        runId: 'run-7',
        scope: 'session',
        reason: 'share',
        spent: { ...spent, costUsd: 0.04 },
        caps: { maxCostUsd: 0.05 },
      },
    });
    ctx.clock.advance(1000);
    await spendStop(ctx, spent, 0.05);
    // a run stopped on a loop has no spend of its own to say
    await ctx.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'loop',
      relatedTasks: ['T2'],
      metadata: { adapter: 'langgraph', runId: 'run-8', loopType: 'cycle', toolCall: 4 },
    });
    server = await startStatusServer({ reader: ctx.reader, port: 0, clock: ctx.clock });
    const { body } = await getJson('/sessions?verdict=stopped_on_spend');
    expect(body.sessions).toMatchObject([
      {
        agent: 'ai-sdk',
        sessionId: 'run-7',
        spend: { tokens: 45, costUsd: 0.06, cost: '$0.06', unpricedTokens: 0 },
        budget: { maxCostUsd: 0.05, maxTokens: null },
        summary: 'stopped on spend (budget reached), $0.06 of $0.05',
        spendSummary: '$0.06 of $0.05',
      },
    ]);
    const loop = await getJson('/sessions?verdict=stopped');
    expect(loop.body.sessions).toMatchObject([{ sessionId: 'run-8', spend: null, budget: null }]);
    expect(await getText('/metrics')).toContain('loopguard_session_spend_dollars{agent="ai-sdk"} 0.06');
  });

  it("writes the total spent as the run's row does: $0.504 of $0.50 is $0.504 in the total, not $0.50 (sess64)", async () => {
    ctx = await openStore(kind);
    await spendStop(ctx, { replies: 3, tokens: 45, costUsd: 0.5039999999999999, unpricedTokens: 0 }, 0.5);
    server = await startStatusServer({ reader: ctx.reader, port: 0, clock: ctx.clock });
    const { body } = await getJson('/status');
    expect(body.sessions.sessions[0].spendSummary).toBe('$0.504 of $0.50');
    expect(body.sessions).toMatchObject({
      spent: '$0.504',
      spendByAgent: [{ agent: 'ai-sdk', cost: '$0.504' }],
    });
  });

  it('lists a run loopguard never spoke to from its run_started entry: no loop found (adapters44)', async () => {
    ctx = await openStore(kind);
    await ctx.addContextEntry({
      entryType: 'learning',
      topic: 'run_started',
      content: 'langgraph run run-9 started',
      relatedTasks: ['T3'],
      metadata: { adapter: 'langgraph', runId: 'run-9' },
    });
    ctx.clock.advance(1000);
    // a run with a nudge too is one session, which started at its run_started entry
    for (const [topic, metadata] of [
      ['run_started', { adapter: 'ai-sdk', runId: 'run-10' }],
      ['loop_nudge', { adapter: 'ai-sdk', runId: 'run-10', loopType: 'cycle', toolCall: 3 }],
    ] as const) {
      await ctx.addContextEntry({
        entryType: 'learning',
        topic,
        content: topic,
        relatedTasks: ['T4'],
        metadata,
      });
      ctx.clock.advance(1000);
    }
    // the store's clock is long before the wall clock: neither run is running
    server = await startStatusServer({ reader: ctx.reader, port: 0, clock: ctx.clock });
    const { body } = await getJson('/sessions');
    expect(body.sessions).toMatchObject([
      {
        agent: 'ai-sdk',
        sessionId: 'run-10',
        verdict: 'nudged',
        nudges: 1,
        toolCalls: null, // not stopped: its count at the nudge is not the run's
        projectDir: '',
        summary: 'nudged 1×, not stopped',
      },
      {
        agent: 'langgraph',
        sessionId: 'run-9',
        verdict: 'clean',
        toolCalls: null,
        summary: 'no loop found',
        spend: null,
      },
    ]);
    expect(body.sessions[0].lastActive - body.sessions[0].startedAt).toBe(1000);
    // the start is no recovery: the run's entries list its nudge only
    const entries = await getJson('/sessions/entries?agent=ai-sdk&sessionId=run-10');
    expect(entries.body.entries.map((e: { action: string }) => e.action)).toEqual(['nudge']);
    expect(await getText('/metrics')).toContain('loopguard_sessions{verdict="clean"} 1');
  });
});
