import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  type BreakerTransition,
  type IterationObservation,
  StagnationBreaker,
  type StagnationBreakerOptions,
} from '../../src/entries/breaker.js';
import { ConfigurationError, InvalidInputError, ManualClock } from '../../src/index.js';

const T0 = 1_760_000_000_000;

function make(options: Partial<StagnationBreakerOptions> = {}) {
  const clock = new ManualClock(T0);
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const breaker = new StagnationBreaker({ runId: 'run-1', clock, logger, ...options });
  const transitions: BreakerTransition[] = [];
  breaker.on('breakerStateChanged', (t) => transitions.push(t));
  let n = 0;
  const feed = (observation: Omit<IterationObservation, 'iteration'>) =>
    breaker.record({ iteration: ++n, ...observation });
  return { clock, breaker, transitions, feed, lines };
}

const noChange = { filesChanged: 0, output: 'nothing to do' };
const changed = { filesChanged: 2, output: 'edited src/a.ts' };

describe('StagnationBreaker: no file changes', () => {
  it('opens at the threshold (default 3) with the reason and a transition row', () => {
    const { breaker, feed, transitions } = make();
    expect(feed(noChange).state).toBe('CLOSED');
    expect(feed(noChange).state).toBe('CLOSED');
    const verdict = feed(noChange);
    expect(verdict).toMatchObject({ state: 'OPEN', tripped: true, progress: 'stalled' });
    expect(verdict.reason).toContain('no_file_changes');
    expect(transitions).toEqual([
      { runId: 'run-1', at: T0, from: 'CLOSED', to: 'OPEN', reason: verdict.reason },
    ]);
    expect(breaker.opens).toBe(1);
  });

  it('honours stagnationThreshold', () => {
    const { feed } = make({ stagnationThreshold: 1 });
    expect(feed(noChange).tripped).toBe(true);
  });

  it('a change resets the count: an agent that commits every iteration never trips', () => {
    const { feed } = make();
    for (let i = 0; i < 20; i++) {
      feed(noChange);
      feed(noChange);
      expect(feed(changed).state).toBe('CLOSED');
    }
  });

  it('is unavailable outside a git repository, never "no progress"', () => {
    const { feed } = make();
    for (let i = 0; i < 10; i++) {
      const verdict = feed({ filesChanged: null, output: 'ok' });
      expect(verdict.state).toBe('CLOSED');
      expect(verdict.readings.find((r) => r.signal === 'no_file_changes')?.status).toBe('unavailable');
    }
  });
});

describe('StagnationBreaker: cooldown, HALF_OPEN, reset', () => {
  it('goes HALF_OPEN after the cooldown (0 = at once) and closes on progress', () => {
    const { breaker, feed, transitions } = make({ cooldownMs: 0 });
    feed(noChange);
    feed(noChange);
    feed(noChange);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(feed(changed).state).toBe('CLOSED');
    expect(transitions.map((t) => t.to)).toEqual(['OPEN', 'HALF_OPEN', 'CLOSED']);
  });

  it('waits the cooldown (default 30 min) before HALF_OPEN', () => {
    const { breaker, clock, feed } = make();
    for (let i = 0; i < 3; i++) feed(noChange);
    clock.advance(30 * 60_000 - 1);
    expect(breaker.state).toBe('OPEN');
    expect(breaker.cooldownRemainingMs()).toBe(1);
    clock.advance(1);
    expect(breaker.state).toBe('HALF_OPEN');
  });

  it('a stalled trial iteration re-opens it at once, and opens are counted', () => {
    const { breaker, feed } = make({ cooldownMs: 0 });
    for (let i = 0; i < 3; i++) feed(noChange);
    expect(breaker.state).toBe('HALF_OPEN');
    const verdict = feed(noChange);
    expect(verdict).toMatchObject({ state: 'OPEN', tripped: true });
    expect(breaker.opens).toBe(2);
  });

  it('autoReset closes after the cooldown instead of HALF_OPEN', () => {
    const { breaker, clock, feed } = make({ cooldownMs: 1000, autoReset: true });
    for (let i = 0; i < 3; i++) feed(noChange);
    expect(breaker.state).toBe('OPEN');
    clock.advance(1000);
    expect(breaker.state).toBe('CLOSED');
    expect(feed(noChange).state).toBe('CLOSED'); // fresh evidence needed
  });

  it('reset closes by hand, keeps the count of opens and needs fresh evidence', () => {
    const { breaker, feed, transitions } = make();
    for (let i = 0; i < 3; i++) feed(noChange);
    breaker.reset();
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.opens).toBe(1);
    expect(transitions.at(-1)).toMatchObject({ from: 'OPEN', to: 'CLOSED', reason: 'manual reset' });
    expect(feed(noChange).state).toBe('CLOSED');
    expect(feed(noChange).state).toBe('CLOSED');
    expect(feed(noChange).state).toBe('OPEN');
    expect(breaker.opens).toBe(2);
  });

  it('trip opens from outside the signals', () => {
    const { breaker } = make();
    breaker.trip('guard consecutive_failures');
    expect(breaker.state).toBe('OPEN');
    expect(breaker.snapshot().reason).toBe('guard consecutive_failures');
  });
});

describe('StagnationBreaker: same error', () => {
  const error = (line: number, time: string) =>
    `[${time}] TypeError: Cannot read properties of undefined (reading 'id')\n    at login (src/auth.ts:${line}:7)`;

  it('opens after the same normalised error 5 times in a row, even while files change', () => {
    const { feed } = make();
    for (let i = 1; i <= 4; i++) {
      expect(feed({ filesChanged: 1, output: error(40 + i, `2026-11-22T04:0${i}:00Z`) }).state).toBe(
        'CLOSED',
      );
    }
    const verdict = feed({ filesChanged: 1, output: error(99, '2026-11-22T04:09:00Z') });
    expect(verdict.tripped).toBe(true);
    expect(verdict.reason).toContain('same_error');
  });

  it('a different error or a clean iteration restarts the streak', () => {
    const { feed } = make({ sameErrorThreshold: 2 });
    feed({ filesChanged: 1, output: error(1, '2026-11-22T04:01:00Z') });
    expect(feed({ filesChanged: 1, output: 'RangeError: bad size' }).state).toBe('CLOSED');
    expect(feed({ filesChanged: 1, output: 'all good' }).state).toBe('CLOSED');
    feed({ filesChanged: 1, output: error(2, '2026-11-22T04:02:00Z') });
    expect(feed({ filesChanged: 1, output: error(3, '2026-11-22T04:03:00Z') }).state).toBe('OPEN');
  });

  it('never counts infrastructure iterations (rate limits) and keeps the streaks', () => {
    const { feed } = make();
    feed(noChange);
    feed(noChange);
    for (let i = 0; i < 10; i++) {
      const verdict = feed({
        filesChanged: 0,
        output: 'Error: 429 Too Many Requests',
        infrastructure: 'rate_limit',
      });
      expect(verdict).toMatchObject({ state: 'CLOSED', progress: 'infrastructure', readings: [] });
    }
    expect(feed(noChange).state).toBe('OPEN');
  });
});

describe('StagnationBreaker: task and completion', () => {
  it('opens when the same task stays in progress for taskThreshold iterations', () => {
    const { feed } = make({ taskThreshold: 2 });
    const task = { id: 'T1', done: false };
    feed({ ...changed, task });
    expect(feed({ ...changed, task }).reason).toContain('task_not_progressing');
  });

  it('a finished task is progress', () => {
    const { feed } = make({ taskThreshold: 2 });
    feed({ ...changed, task: { id: 'T1', done: false } });
    expect(feed({ ...changed, task: { id: 'T1', done: true } }).state).toBe('CLOSED');
    expect(feed({ ...changed, task: { id: 'T2', done: false } }).state).toBe('CLOSED');
  });

  it('opens on completion claims without evidence', () => {
    const { feed } = make();
    const claim = { filesChanged: null, completionClaimed: true, evidenceProblems: ['npm test exited 1'] };
    feed(claim);
    feed(claim);
    const verdict = feed(claim);
    expect(verdict.tripped).toBe(true);
    expect(verdict.reason).toContain('completion claimed without evidence: npm test exited 1');
  });

  it('a claim with evidence is progress', () => {
    const { feed } = make();
    expect(feed({ filesChanged: null, completionClaimed: true, evidenceProblems: [] }).progress).toBe(
      'progress',
    );
  });
});

describe('StagnationBreaker: persistence', () => {
  it('resumes from a snapshot with its state and streaks', () => {
    const first = make();
    first.feed(noChange);
    first.feed(noChange);
    const snapshot = JSON.parse(JSON.stringify(first.breaker.snapshot()));
    const second = make({ snapshot });
    expect(second.breaker.restoreNotice).toBeNull();
    expect(second.feed(noChange).tripped).toBe(true);
  });

  it('an opened_at in the future (clock skew) keeps it OPEN, even with a cooldown of 0', () => {
    const { breaker } = make({
      cooldownMs: 0,
      snapshot: { state: 'OPEN', openedAt: T0 + 3_600_000, opens: 1, reason: 'x', signals: {} },
    });
    expect(breaker.state).toBe('OPEN');
    expect(breaker.cooldownRemainingMs()).toBe(3_600_000);
  });

  it.each([
    ['corrupt', { state: 'WEIRD' }, 'corrupt'],
    ['missing', null, 'no persisted breaker state'],
    ['not JSON-shaped', 'garbage', 'corrupt'],
  ])('a %s state starts CLOSED and says so', (_name, snapshot, notice) => {
    const { breaker, lines } = make({ snapshot });
    expect(breaker.state).toBe('CLOSED');
    expect(breaker.restoreNotice).toContain(notice);
    expect(breaker.restoreNotice).toContain('starting CLOSED');
    expect(lines.some((l) => l.level === 40 && l.msg.includes('starting CLOSED'))).toBe(true);
  });
});

describe('StagnationBreaker: bad input', () => {
  it('rejects bad options naming them', () => {
    expect(() => new StagnationBreaker({ runId: 'r', stagnationThreshold: 0 })).toThrow(ConfigurationError);
    expect(() => new StagnationBreaker({ runId: 'r', stagnationThreshold: 0 })).toThrow(
      /stagnationThreshold/,
    );
    expect(() => new StagnationBreaker({ runId: '' })).toThrow(/runId/);
    expect(() => new StagnationBreaker({ runId: 'r', cooldownMs: -1 })).toThrow(/cooldownMs/);
  });

  it('rejects an observation without a positive iteration', () => {
    const { breaker, transitions } = make();
    expect(() => breaker.record({ iteration: 0 })).toThrow(InvalidInputError);
    expect(transitions).toEqual([]);
  });

  it('a throwing listener does not break the breaker', () => {
    const { breaker, feed } = make({ stagnationThreshold: 1 });
    breaker.on('breakerStateChanged', () => {
      throw new Error('listener failed');
    });
    expect(feed(noChange).state).toBe('OPEN');
  });
});

describe('StagnationBreaker: step-level stops', () => {
  it('counts iterations stopped mid-run by the loop detector', () => {
    const { feed } = make({ stagnationThreshold: 2 });
    expect(feed({ filesChanged: 1, stepLoopStopped: 'same_error' }).state).toBe('CLOSED');
    const verdict = feed({ filesChanged: 1, stepLoopStopped: 'same_error' });
    expect(verdict.tripped).toBe(true);
    expect(verdict.reason).toContain('step_loop_stopped: stopped mid-run by the loop detector: same_error');
  });
});
