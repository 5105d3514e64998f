import type { ContextEntryInput } from '@loopguard/core';
import type { RunTally } from '@loopguard/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, type TestStore, useStores } from './stores.js';

const openStore = useStores();
let opened: TestStore[] = [];

afterEach(async () => {
  await Promise.all(opened.map((store) => store.cleanup()));
  opened = [];
});

/** What a framework adapter's run writes, in order: entries (an adapter's metadata) and tallies. */
type Write = { entry: ContextEntryInput } | { tally: Omit<RunTally, 'at'> };

function entry(
  topic: string,
  metadata: Record<string, unknown>,
  entryType: ContextEntryInput['entryType'] = topic === 'loop_nudge' || topic === 'run_started'
    ? 'learning'
    : 'decision',
): Write {
  return { entry: { entryType, topic, content: `${topic} of the run`, relatedTasks: ['T1'], metadata } };
}

/**
 * Every door's reading of the same writes (the sessions page with each sentence, the counts, each
 * session's entries, the recoveries page) on one store: `status`, `status --session`, the dashboard
 * and `recoveries` print these, over SQLite (`--db`) or PostgreSQL (`--postgres`).
 */
async function doors(store: TestStore, writes: readonly Write[]) {
  for (const write of writes) {
    if ('entry' in write) await store.addContextEntry(write.entry);
    else await store.recordRunTally({ ...write.tally, at: store.clock.now() });
    store.clock.advance(1000);
  }
  const page = await store.reader.sessionPage({ limit: 100 });
  const entries = await Promise.all(
    page.sessions.map((s) => store.reader.sessionEntries({ agent: s.agent, sessionId: s.sessionId }, 100)),
  );
  const recoveries = await store.reader.recoveryPage({ limit: 100 });
  // the stores' own ids differ; what a door prints of an entry does not
  const withoutIds = <T extends { id?: unknown; entryId?: unknown }>(rows: T[]) =>
    rows.map(({ id: _id, entryId: _entryId, ...rest }) => rest);
  return {
    sessions: page.sessions,
    counts: await store.reader.sessionCounts(),
    entries: entries.map(withoutIds),
    recoveries: withoutIds(recoveries.recoveries),
  };
}

/** The doors' readings of `writes` on every store, in {@link STORE_KINDS}'s order. */
async function onEveryStore(writes: readonly Write[]) {
  const read = [];
  for (const kind of STORE_KINDS) {
    const store = await openStore(kind);
    opened.push(store);
    read.push(await doors(store, writes));
  }
  return read;
}

const ai = { adapter: 'ai-sdk', runId: 'run-1' };

describe('pg68: the same framework runs tell every door the same story on SQLite and on PostgreSQL', () => {
  it('a run nudged, then stopped', async () => {
    const [sqlite, postgres] = await onEveryStore([
      entry('run_started', { ...ai, projectDir: '/repo' }),
      entry('loop_nudge', { ...ai, loopType: 'cycle', toolCall: 3 }),
      entry('loop_stop', { ...ai, loopType: 'cycle', toolCall: 5 }),
    ]);
    expect(sqlite?.sessions[0]?.summary).toBe(
      'stopped by loopguard at call 5 (repeated sequence of calls), 5 tool calls ran, 1 nudge',
    );
    expect(postgres).toEqual(sqlite);
  });

  it('a run guarded again under its run id and stopped again, after its call ran', async () => {
    const [sqlite, postgres] = await onEveryStore([
      entry('run_started', { ...ai, projectDir: '/repo' }),
      entry('loop_stop', { ...ai, loopType: 'cycle', toolCall: 5 }),
      entry('loop_stop', { ...ai, loopType: 'cycle', toolCall: 7 }),
    ]);
    // no call was denied: the second guard's stop came after its call ran, as a hook session resumed
    expect(sqlite?.sessions[0]?.summary).toBe(
      'stopped by loopguard at call 5 (repeated sequence of calls), 5 tool calls ran, stopped again at call 7',
    );
    expect(postgres).toEqual(sqlite);
  });

  it('a run stopped on spend, with its warning first', async () => {
    const spent = { replies: 3, tokens: 45, costUsd: 0.06, unpricedTokens: 0, unpricedModels: [] };
    const [sqlite, postgres] = await onEveryStore([
      entry('run_started', { ...ai, projectDir: '/repo' }),
      entry('spend_warning', { ...ai, scope: 'session', reason: 'share', spent, caps: { maxCostUsd: 0.07 } }),
      entry('spend_stop', {
        ...ai,
        scope: 'session',
        reason: 'cap',
        toolCall: 4,
        spent,
        caps: { maxCostUsd: 0.05 },
      }),
    ]);
    expect(sqlite?.sessions[0]?.summary).toBe(
      'stopped on spend at call 4 (budget reached), 4 tool calls ran, $0.06 of $0.05',
    );
    expect(postgres).toEqual(sqlite);
  });

  it('two frameworks given the same run id are two sessions, each with its own stop', async () => {
    const [sqlite, postgres] = await onEveryStore([
      entry('run_started', { ...ai, projectDir: '/repo' }),
      entry('loop_stop', { ...ai, loopType: 'cycle', toolCall: 5 }),
      entry('run_started', { adapter: 'langgraph', runId: 'run-1', projectDir: '/repo' }),
      {
        tally: {
          adapter: 'langgraph',
          runId: 'run-1',
          projectDir: '/repo',
          toolCalls: 2,
          tokens: null,
          costUsd: null,
          unpricedTokens: null,
          budgetUsd: null,
          budgetTokens: null,
          ended: true,
        },
      },
    ]);
    expect(sqlite?.sessions.map((s) => [s.agent, s.summary])).toEqual([
      ['langgraph', 'no loop found, 2 tool calls ran'],
      ['ai-sdk', 'stopped by loopguard at call 5 (repeated sequence of calls), 5 tool calls ran'],
    ]);
    expect(postgres).toEqual(sqlite);
  });
});
