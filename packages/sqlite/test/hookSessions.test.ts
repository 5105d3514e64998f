import { InvalidInputError, ManualClock } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { openLoopGuardDatabase, SqliteHookSessionStore } from '../src/index.js';

const key = { agent: 'claude' as const, sessionId: 's1', projectDir: '/repo' };
const state = {
  snapshot: '{}',
  lastResults: '[]',
  steps: 2,
  toolCalls: 1,
  parentSessionId: null,
  agentType: null,
  nudges: 0,
  stops: 0,
  enabled: true,
};

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
});
