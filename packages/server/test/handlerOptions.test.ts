import { ConfigurationError } from '@loopguard/core';
import type { StatusReader } from '@loopguard/core/internal';
import { describe, expect, it } from 'vitest';
import { createStatusHandler, followReader, LiveFeed } from '../src/index.js';

// Bad options are refused where the handler is made, naming the option, before any timer or stream
// starts: a negative poll interval would poll the store in a tight loop, a cache time that is not
// a number would never reuse an answer, and a missing reader fails at the first request.
const reader = {} as StatusReader;

describe('createStatusHandler options', () => {
  it.each([
    ['followIntervalMs', -5],
    ['followIntervalMs', 0],
    ['attemptWindowMs', 1.5],
    ['maxBodyBytes', -1],
    ['maxEventStreams', 'x'],
    ['cacheMs', Number.NaN],
    ['cacheMs', -1],
    ['heartbeatMs', Number.POSITIVE_INFINITY],
  ])('%s %s is refused, naming the option', (name, value) => {
    const create = () => createStatusHandler({ reader, [name]: value });
    expect(create).toThrow(ConfigurationError);
    expect(create).toThrow(new RegExp(`^${name} must be`));
  });

  it('a missing reader is refused, naming it', () => {
    const create = () => createStatusHandler({} as Parameters<typeof createStatusHandler>[0]);
    expect(create).toThrow(ConfigurationError);
    expect(create).toThrow(/^reader must be/);
  });
});

describe('followReader options', () => {
  it.each([-1, 0, 2.5, 'x'])('intervalMs %s is refused, naming it, before the first read', (intervalMs) => {
    const start = { attemptId: 0, recoveryId: 0, transitionId: 0 } as never;
    const follow = () => followReader(reader, start, new LiveFeed(), { intervalMs: intervalMs as number });
    expect(follow).toThrow(ConfigurationError);
    expect(follow).toThrow(/^intervalMs must be/);
  });
});
