import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { COUNTS_ONLY, detections, feed, makeStepDetector, turn } from './helpers.js';

const times = (count: number, make: (i: number) => Step[]): Step[] =>
  Array.from({ length: count }, (_, i) => make(i)).flat();

describe('repeated_action', () => {
  it('nudges on the third identical action with the same observation, not before', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const verdicts = feed(
      detector,
      times(2, () => turn('cat setup.py', 'name = "x"')),
    );
    expect(detections(verdicts)).toEqual([]);
    const [, third] = feed(detector, turn('cat setup.py', 'name = "x"'));
    expect(third).toMatchObject({
      action: 'nudge',
      loopType: 'repeated_action',
      repeats: 3,
      since: 1,
      step: 5,
    });
    expect(third?.evidence).toHaveLength(3);
    expect(third?.message).toContain('Loop detected (repeated_action)');
    expect(third?.message).toContain('cat setup.py');
  });

  it('repeatThreshold changes when it fires', () => {
    const { detector } = makeStepDetector({ ...COUNTS_ONLY, repeatThreshold: 5 });
    expect(
      detections(
        feed(
          detector,
          times(4, () => turn('ls', 'a b')),
        ),
      ),
    ).toEqual([]);
    expect(feed(detector, turn('ls', 'a b'))[1]?.action).toBe('nudge');
  });

  it('counts near-duplicates: whitespace, temp paths, timestamps and durations do not make an action new', () => {
    const { detector } = makeStepDetector();
    const verdicts = feed(detector, [
      ...turn('cat  /tmp/run-a1/log.txt', 'ok (12ms)'),
      ...turn('cat /tmp/run-b2/log.txt', 'ok (40ms)'),
      ...turn('cat /tmp/run-c3/log.txt   ', 'ok (7ms)'),
    ]);
    expect(detections(verdicts)[0]).toMatchObject({ action: 'nudge', loopType: 'repeated_action' });
  });

  it('ignores reworded reasoning: messages and a tool input description never make an action new', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const verdicts = feed(detector, [
      ...turn({ command: 'npm test', description: 'Run the tests' }, 'Tests: 3 passed', {
        reason: 'Let me run the tests.',
        tool: 'Bash',
      }),
      ...turn({ description: 'Check the tests again', command: 'npm test' }, 'Tests: 3 passed', {
        reason: 'Running them again.',
        tool: 'Bash',
      }),
      ...turn({ command: 'npm test', description: 'Verify' }, 'Tests: 3 passed', {
        reason: 'One more time to be sure.',
        tool: 'Bash',
      }),
    ]);
    expect(detections(verdicts)).toHaveLength(1);
    expect(detections(verdicts)[0]?.loopType).toBe('repeated_action');
  });

  it('the same command with a different tool is a different action', () => {
    const { detector } = makeStepDetector();
    const verdicts = feed(detector, [
      ...turn('x', 'y', { tool: 'a' }),
      ...turn('x', 'y', { tool: 'b' }),
      ...turn('x', 'y', { tool: 'c' }),
    ]);
    expect(detections(verdicts)).toEqual([]);
  });

  it('an action with no observation before the next action is a turn of its own: five such calls in a row are a loop', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const call: Step = { type: 'action', tool: 'Read', input: { file_path: 'a.ts' } };
    expect(
      detections(
        feed(
          detector,
          times(4, () => [call]),
        ),
      ),
    ).toEqual([]);
    const found = detections(
      feed(
        makeStepDetector(COUNTS_ONLY).detector,
        times(6, () => [call]),
      ),
    );
    // Without results, the fifth call (the fourth closed by the same call again) is the first hit.
    expect(found.map((v) => [v.action, v.loopType, v.step])).toEqual([
      ['nudge', 'repeated_action', 4],
      ['stop', 'repeated_action', 5],
    ]);
  });

  it('calls without results taking turns (A B C A B C A B C) are no cycle: nothing shows the same results', () => {
    const calls: Step[] = ['a.ts', 'b.ts', 'c.ts'].map((file) => ({
      type: 'action',
      tool: 'Read',
      input: { file_path: file },
    }));
    expect(
      detections(
        feed(
          makeStepDetector().detector,
          times(3, () => calls),
        ),
      ),
    ).toEqual([]);
  });
});

describe('same_error', () => {
  const failure = (line: number, address: string) =>
    `Traceback (most recent call last):\n  File "/testbed/app.py", line ${line}, in main\nValueError: bad widget at 0x${address}`;

  it('catches a fix retried with the same error and varying line numbers and addresses', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const verdicts = feed(detector, [
      ...turn('python app.py', failure(12, '7f01'), { error: true }),
      ...turn('python app.py', failure(14, '7f9a'), { error: true }),
      ...turn('python app.py', failure(19, '7fff'), { error: true }),
    ]);
    expect(detections(verdicts)).toHaveLength(1);
    expect(detections(verdicts)[0]).toMatchObject({ action: 'nudge', loopType: 'same_error', repeats: 3 });
    expect(detections(verdicts)[0]?.message).toContain('failed with the same error');
  });

  it('different errors are progress', () => {
    const { detector } = makeStepDetector();
    const verdicts = feed(detector, [
      ...turn('python app.py', 'ValueError: bad widget', { error: true }),
      ...turn('python app.py', 'KeyError: name', { error: true }),
      ...turn('python app.py', 'TypeError: x is None', { error: true }),
    ]);
    expect(detections(verdicts)).toEqual([]);
  });

  it('sameErrorThreshold changes when it fires', () => {
    const { detector } = makeStepDetector({ sameErrorThreshold: 2 });
    const verdicts = feed(
      detector,
      times(2, () => turn('make', 'error: missing ;', { error: true })),
    );
    expect(detections(verdicts)[0]?.loopType).toBe('same_error');
  });

  it('rejected replies (an observation with no action) repeating the same notice are a loop', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const steps: Step[] = times(3, () => [
      { type: 'message', text: 'Here are two commands.' },
      { type: 'observation', output: 'Please always provide EXACTLY ONE action.', error: true },
    ]);
    expect(detections(feed(detector, steps))[0]).toMatchObject({ loopType: 'rejected_turn', repeats: 3 });
  });
});

describe('oscillation', () => {
  it('nudges on A-B-A-B', () => {
    const { detector } = makeStepDetector();
    const verdicts = feed(detector, [
      ...turn('git stash', 'Saved'),
      ...turn('git stash pop', 'Restored'),
      ...turn('git stash', 'Saved'),
      ...turn('git stash pop', 'Restored'),
    ]);
    expect(detections(verdicts)).toHaveLength(1);
    expect(detections(verdicts)[0]).toMatchObject({
      action: 'nudge',
      loopType: 'oscillation',
      repeats: 2,
      since: 1,
    });
  });

  it('oscillationRepeats changes when it fires', () => {
    const { detector } = makeStepDetector({ oscillationRepeats: 3 });
    const ab = [...turn('a', 'one'), ...turn('b', 'two')];
    expect(detections(feed(detector, [...ab, ...ab]))).toEqual([]);
    expect(detections(feed(detector, ab))[0]?.loopType).toBe('oscillation');
  });
});

describe('cycle', () => {
  const cycle = (length: number) => Array.from({ length }, (_, i) => turn(`step-${i}`, `out-${i}`)).flat();

  it.each([3, 4, 5])('catches a %i-turn cycle at the end of its second repetition', (length) => {
    const { detector } = makeStepDetector();
    const first = feed(detector, cycle(length));
    const second = feed(detector, cycle(length));
    expect(detections(first)).toEqual([]);
    expect(detections(second)).toHaveLength(1);
    expect(second.at(-1)).toMatchObject({ action: 'nudge', loopType: 'cycle', repeats: 2, since: 1 });
  });

  it('maxCycleLength leaves longer cycles to the repeat rule', () => {
    expect(detections(feed(makeStepDetector().detector, [...cycle(4), ...cycle(4)]))[0]?.loopType).toBe(
      'cycle',
    );
    const { detector } = makeStepDetector({ maxCycleLength: 3 });
    expect(detections(feed(detector, [...cycle(4), ...cycle(4)]))).toEqual([]);
    // the third time round, every turn of the cycle has recurred three times with nothing fresh
    expect(detections(feed(detector, cycle(4)))[0]?.loopType).toBe('repeated_action');
  });

  it('cycleRepeats changes when it fires', () => {
    const { detector } = makeStepDetector({ cycleRepeats: 3 });
    expect(detections(feed(detector, [...cycle(3), ...cycle(3)]))).toEqual([]);
    expect(feed(detector, cycle(3)).at(-1)?.loopType).toBe('cycle');
  });
});

describe('repeated_message', () => {
  it('nudges on the third identical message with nothing new between', () => {
    const { detector } = makeStepDetector();
    const steps: Step[] = times(3, () => [{ type: 'message', text: 'I am stuck, let me think.' }]);
    const found = detections(feed(detector, steps));
    expect(found[0]).toMatchObject({
      action: 'nudge',
      loopType: 'repeated_message',
      repeats: 3,
      since: 0,
      step: 2,
    });
  });

  it('the same sentence before each new edit is not a loop', () => {
    const { detector } = makeStepDetector();
    const steps = times(6, (i) => [
      ...turn(`sed -i 's/a/b${i}/' f.py`, ''),
      ...turn('python repro.py', `result ${i}`, { reason: 'Run reproduction script.' }),
    ]);
    expect(detections(feed(detector, steps))).toEqual([]);
  });

  it('messageRepeatThreshold changes when it fires', () => {
    const { detector } = makeStepDetector({ messageRepeatThreshold: 2 });
    expect(
      detections(
        feed(
          detector,
          times(2, () => [{ type: 'message', text: 'hm' }]),
        ),
      )[0]?.loopType,
    ).toBe('repeated_message');
  });
});

describe('chanting', () => {
  it('catches one reply that repeats a line hundreds of times', () => {
    const { detector } = makeStepDetector();
    const verdict = detector.observe({ type: 'message', text: 'I will fix the test now.\n'.repeat(300) });
    expect(verdict).toMatchObject({ action: 'nudge', loopType: 'chanting', repeats: 300 });
  });

  it('catches repetition with no line or sentence breaks', () => {
    const { detector } = makeStepDetector();
    const verdict = detector.observe({
      type: 'message',
      text: `Let me think ${'about the parser and '.repeat(60)}`,
    });
    expect(verdict.loopType).toBe('chanting');
  });

  it('code that repeats a line inside a long explanation is not chanting', () => {
    const { detector } = makeStepDetector();
    const code = Array.from(
      { length: 40 },
      (_, i) => `The branch ${i} handles case number ${i * 7} of the parser.\n    self.empty_label = None`,
    ).join('\n');
    expect(detector.observe({ type: 'message', text: code }).action).toBe('continue');
  });

  it('chantRepeats and chantShare change when it fires', () => {
    const text = 'again and again\n'.repeat(20);
    expect(makeStepDetector({ chantRepeats: 21 }).detector.observe({ type: 'message', text }).action).toBe(
      'continue',
    );
    const diluted = `${text}${'x'.repeat(200)}`;
    expect(makeStepDetector().detector.observe({ type: 'message', text: diluted }).action).toBe('nudge');
    expect(
      makeStepDetector({ chantShare: 0.9 }).detector.observe({ type: 'message', text: diluted }).action,
    ).toBe('continue');
  });
});

describe('long texts', () => {
  it('outputs longer than 512 characters that differ only at the end are different; equal ones repeat', () => {
    const long = 'x'.repeat(2000);
    const { detector } = makeStepDetector();
    const differing = feed(detector, [
      ...turn('cat big.log', `${long}1a`),
      ...turn('cat big.log', `${long}2b`),
      ...turn('cat big.log', `${long}3c`),
    ]);
    expect(detections(differing)).toEqual([]);
    const same = feed(detector, [
      ...turn('cat big.log', `${long}!`),
      ...turn('cat big.log', `${long}!`),
      ...turn('cat big.log', `${long}!`),
    ]);
    expect(detections(same)[0]?.loopType).toBe('repeated_action');
  });
});

describe('error signatures of long lines', () => {
  it('a failure beside a long line of progress dots is still judged by its error line', () => {
    const output = (n: number) => `${'.'.repeat(8000)}\nFAILED tests/test_a.py::test_x - assert ${n} == 4`;
    const { detector } = makeStepDetector();
    const verdicts = feed(
      detector,
      [1, 1, 1].flatMap((n) => turn('pytest', output(n), { error: true })),
    );
    expect(detections(verdicts)[0]?.loopType).toBe('same_error');
  });
});

describe('action inputs that are objects', () => {
  it('key order does not make an action new; a different value does', () => {
    const { detector } = makeStepDetector();
    const same = feed(detector, [
      ...turn({ file_path: 'a.ts', limit: 50 }, 'text', { tool: 'Read' }),
      ...turn({ limit: 50, file_path: 'a.ts' }, 'text', { tool: 'Read' }),
      ...turn({ file_path: 'a.ts', limit: 50 }, 'text', { tool: 'Read' }),
    ]);
    expect(detections(same)[0]?.loopType).toBe('repeated_action');
    const other = makeStepDetector().detector;
    const differing = feed(
      other,
      [1, 2, 3].flatMap((offset) => turn({ file_path: 'a.ts', offset }, `text ${offset}`, { tool: 'Read' })),
    );
    expect(detections(differing)).toEqual([]);
  });
});

describe('first results of new actions', () => {
  it('are normalised when the action comes again, so a near-duplicate of the first result still repeats', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const verdicts = feed(detector, [
      ...turn('curl localhost:8080/health', 'down since 10:11:12'),
      ...turn('curl localhost:8080/health', 'down since 10:11:40'),
      ...turn('curl localhost:8080/health', 'down since 10:12:05'),
    ]);
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'repeated_action', repeats: 3, since: 1 });
  });

  it('a command first seen 300 new commands ago still loops when repeated', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    feed(detector, turn('make check', 'ok'));
    feed(detector, Array.from({ length: 300 }, (_, i) => turn(`cat file${i}.txt`, `content ${i}`)).flat());
    const verdicts = feed(detector, Array.from({ length: 3 }, () => turn('make check', 'ok')).flat());
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'repeated_action', repeats: 3 });
  });
});
