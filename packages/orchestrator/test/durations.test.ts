import { ConfigurationError, InMemoryStateMachine } from '@loopguard/core';
import { describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY, OrchestratorLoop, systemTimer } from '../src/index.js';
import { scriptedPolicy } from './helpers.js';

describe('duration options are range-checked against the timer limit', () => {
  const base = () => ({
    stateMachine: new InMemoryStateMachine(),
    policy: scriptedPolicy([]),
    executor: async () => ({ status: 'done' as const, completedWork: [], blockers: [] }),
  });

  it('MAX_TIMER_DELAY is 2^31 − 1 ms', () => {
    expect(MAX_TIMER_DELAY).toBe(2_147_483_647);
  });

  it('accepts executorTimeout = 2^31 − 1 and rejects 2^31 with a message naming the limit', () => {
    expect(() => new OrchestratorLoop({ ...base(), executorTimeout: MAX_TIMER_DELAY })).not.toThrow();
    expect(() => new OrchestratorLoop({ ...base(), executorTimeout: 2 ** 31 })).toThrow(ConfigurationError);
    expect(() => new OrchestratorLoop({ ...base(), executorTimeout: 2 ** 31 })).toThrow(
      /"executorTimeout" must be at most 2147483647 ms \(2\^31 − 1/,
    );
    expect(() => new OrchestratorLoop({ ...base(), executorTimeout: Number.POSITIVE_INFINITY })).toThrow(
      ConfigurationError,
    );
  });

  it('systemTimer clamps a longer delay instead of letting Node fire it after 1 ms', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const handle = systemTimer.setTimeout(() => {}, 2 ** 32);
    systemTimer.clearTimeout(handle);
    expect(spy).toHaveBeenLastCalledWith(expect.any(Function), MAX_TIMER_DELAY);
    spy.mockRestore();
  });
});
