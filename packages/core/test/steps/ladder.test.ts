import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { StepLoopDetector } from '../../src/entries/steps.js';
import { type ContextEntry, ManualClock } from '../../src/index.js';
import { recoveryViewOf, startsLoop } from '../../src/internal.js';
import { StepLadder } from '../../src/steps/rules/StepLadder.js';
import { COUNTS_ONLY, feed, makeRecordingDetector, makeStepDetector, turn } from './helpers.js';

describe('StepLadder', () => {
  it('nudges, waits, stops; reset starts over', () => {
    const ladder = new StepLadder(2);
    expect([
      ladder.climb(1, 'same_error'),
      ladder.climb(2, 'same_error'),
      ladder.climb(3, 'same_error'),
      ladder.climb(4, 'same_error'),
    ]).toEqual(['nudge', 'continue', 'stop', 'stop']);
    expect(ladder.nudgedFor).toBe('same_error');
    ladder.reset();
    expect(ladder.isNudged).toBe(false);
    expect(ladder.nudgedFor).toBeNull();
    expect(ladder.climb(5, 'same_error')).toBe('nudge');
  });

  it('a hit at the step of the nudge does not count towards the stop: the nudge was not heard yet', () => {
    const ladder = new StepLadder(1);
    expect([
      ladder.climb(7, 'same_error'),
      ladder.climb(7, 'same_error'),
      ladder.climb(8, 'same_error'),
    ]).toEqual(['nudge', 'continue', 'stop']);
  });

  it('a hit of a loop nudged before (its nudge ended by a new question) is its first hit since the nudge: no second nudge', () => {
    const once = new StepLadder(1);
    expect(once.climb(9, 'outcome_stagnation', 'probe', true)).toBe('stop');
    expect(once.isNudged).toBe(true);
    expect(once.nudgedFor).toBe('outcome_stagnation');
    expect(once.climb(10, 'outcome_stagnation')).toBe('stop');
    // stopAfter 2: one more hit after it stops, as after any nudge
    const twice = new StepLadder(2);
    expect([
      twice.climb(9, 'outcome_stagnation', 'probe', true),
      twice.climb(9, 'outcome_stagnation'),
      twice.climb(10, 'outcome_stagnation'),
    ]).toEqual(['continue', 'continue', 'stop']);
  });
});

describe('the ladder in the detector', () => {
  it('for outcome stagnation an edit is not progress: the stop comes at the next stale round', () => {
    const edit = (i: number) => turn(`sed -i 's/v = ${i}/v = ${i + 1}/' src/m.py`, '');
    const probe = () => turn('python t.py', 'value: None');
    const steps = [
      ...edit(0),
      ...probe(),
      ...edit(1),
      ...probe(),
      ...edit(2),
      ...probe(),
      ...edit(3),
      ...probe(),
    ];
    const verdicts = feed(makeStepDetector().detector, steps).filter((v) => v.action !== 'continue');
    expect(verdicts.map((v) => [v.action, v.loopType])).toEqual([
      ['nudge', 'outcome_stagnation'],
      ['stop', 'outcome_stagnation'],
    ]);
  });

  it('a loop that goes on after the nudge stops after stopAfter more hits', () => {
    const { detector } = makeStepDetector({ ...COUNTS_ONLY, stopAfter: 2 });
    const actions = feed(detector, Array.from({ length: 6 }, () => turn('ls', 'a')).flat())
      .filter((_, i) => i % 2 === 1)
      .map((v) => v.action);
    expect(actions).toEqual(['continue', 'continue', 'nudge', 'continue', 'stop', 'stop']);
  });

  it('by default the loop stops at the first hit after the nudge', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const actions = feed(detector, Array.from({ length: 5 }, () => turn('ls', 'a')).flat())
      .filter((_, i) => i % 2 === 1)
      .map((v) => v.action);
    expect(actions).toEqual(['continue', 'continue', 'nudge', 'stop', 'stop']);
  });

  it('the loop that continues after the nudge keeps its type without a message', () => {
    const { detector } = makeStepDetector({ ...COUNTS_ONLY, stopAfter: 2 });
    const verdicts = feed(detector, Array.from({ length: 4 }, () => turn('ls', 'a')).flat());
    expect(verdicts.at(-1)).toMatchObject({
      action: 'continue',
      loopType: 'repeated_action',
      repeats: 4,
      message: null,
    });
  });

  it('stopAfter changes when the stop comes', () => {
    const { detector } = makeStepDetector({ ...COUNTS_ONLY, stopAfter: 3 });
    const actions = feed(detector, Array.from({ length: 4 }, () => turn('ls', 'a')).flat()).map(
      (v) => v.action,
    );
    expect(actions.filter((a) => a !== 'continue')).toEqual(['nudge']);
    expect(feed(detector, turn('ls', 'a')).map((v) => v.action)).toEqual(['continue', 'continue']);
    expect(feed(detector, turn('ls', 'a')).map((v) => v.action)).toEqual(['continue', 'stop']);
  });

  it('fresh evidence after the nudge resets the ladder: the next loop nudges again', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const first = feed(detector, Array.from({ length: 3 }, () => turn('ls', 'a')).flat());
    expect(first.at(-1)?.action).toBe('nudge');
    feed(detector, turn('cat README.md', '# project'));
    const second = feed(detector, Array.from({ length: 3 }, () => turn('ls', 'a')).flat()).map(
      (v) => v.action,
    );
    expect(second.filter((a) => a !== 'continue')).toEqual(['nudge']);
  });

  it('a stop message says the loop went on after the nudge', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const verdicts = feed(detector, Array.from({ length: 4 }, () => turn('ls', 'a')).flat());
    expect(verdicts.at(-1)?.action).toBe('stop');
    expect(verdicts.at(-1)?.message).toMatch(
      /^Stopped \(repeated_action\): the loop went on after the nudge/,
    );
  });
});

describe('recording', () => {
  it('writes nudges and stops as context entries with the evidence in metadata', () => {
    const { detector, stateMachine } = makeRecordingDetector(COUNTS_ONLY);
    const recorded: string[] = [];
    const detected: string[] = [];
    detector.on('stepLoopRecorded', (entry) => recorded.push(entry.topic));
    detector.on('stepLoopDetected', (verdict) => detected.push(verdict.action));
    feed(
      detector,
      Array.from({ length: 4 }, () => turn('pytest', 'E   assert 1 == 2', { error: true })).flat(),
    );
    expect(detected).toEqual(['nudge', 'stop']);
    expect(recorded).toEqual(['loop_nudge', 'loop_stop']);
    const [stop, nudge] = stateMachine.listContextEntries({
      topics: ['loop_nudge', 'loop_stop'],
      taskId: 'T1',
    });
    expect(nudge).toMatchObject({ topic: 'loop_nudge', entryType: 'learning', relatedTasks: ['T1'] });
    expect(stop).toMatchObject({ topic: 'loop_stop', entryType: 'decision' });
    expect(nudge?.content).toContain('Loop detected (same_error)');
    expect(nudge?.metadata).toMatchObject({
      loopType: 'same_error',
      repeats: 3,
      runId: 'run-1',
      detectedAt: 1_763_500_000_000,
    });
    expect(nudge?.metadata.evidence).toHaveLength(3);
    expect(nudge?.metadata.thresholds).toMatchObject({ sameErrorThreshold: 3, stopAfter: 1 });
    // the stop ends the loop the nudge began: one loop, counted once
    expect([nudge?.metadata.followsNudge, stop?.metadata.followsNudge]).toEqual([false, true]);
    expect([nudge, stop].map((entry) => startsLoop(recoveryViewOf(entry as ContextEntry)))).toEqual([
      true,
      false,
    ]);
  });

  it('a throwing listener or a failing state machine never breaks observe', () => {
    const { stateMachine } = makeRecordingDetector(COUNTS_ONLY);
    const failing = {
      ...stateMachine,
      addContextEntry: () => {
        throw new Error('disk full');
      },
    } as unknown as typeof stateMachine;
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line).msg) });
    const detector = new StepLoopDetector({
      ...COUNTS_ONLY,
      stateMachine: failing,
      taskId: 'T1',
      clock: new ManualClock(0),
      logger,
    });
    detector.on('stepLoopDetected', () => {
      throw new Error('listener bug');
    });
    const verdicts = feed(detector, Array.from({ length: 3 }, () => turn('ls', 'a')).flat());
    expect(verdicts.at(-1)?.action).toBe('nudge');
    expect(lines).toEqual(['Listener for stepLoopDetected threw', 'Recording a step loop failed']);
  });
});

describe('recorded step loops hold no NUL', () => {
  it('a NUL in the output is written as \\u0000 in the entry, so any store can keep it', () => {
    const { detector, stateMachine } = makeRecordingDetector();
    feed(detector, Array.from({ length: 4 }, () => turn('cat data.bin', 'head\u0000tail')).flat());
    const entries = stateMachine.listContextEntries({ topics: ['loop_nudge', 'loop_stop'] });
    expect(entries.length).toBeGreaterThan(0);
    const hasNul = (value: unknown): boolean =>
      typeof value === 'string'
        ? value.includes('\u0000')
        : value !== null && typeof value === 'object' && Object.values(value).some(hasNul);
    for (const entry of entries) {
      expect(hasNul(entry.content)).toBe(false);
      expect(hasNul(entry.metadata)).toBe(false);
      expect(entry.content).toContain('head\\u0000tail');
    }
  });
});
