import { describe, expect, it } from 'vitest';
import { detections, feed, makeStepDetector, restoredEachStep, turn } from './helpers.js';

const FAIL = 'Traceback (most recent call last):\n  File "t.py", line 3, in <module>\nAssertionError: got 1';
const CODE = 'def area(r):\n    return 3 * r * r';
const DONE = '[The command completed with exit code 0.]';

/** Each input shape's probe run, silent change of the code under test (`from` → `to`) and read of it. */
const shapes = {
  'argument objects': {
    run: () =>
      turn({ command: 'python t.py' }, `${FAIL}\n[The command completed with exit code 1.]`, {
        tool: 'execute_bash',
        error: true,
      }),
    change: (from: number, to: number) =>
      turn({ command: `sed -i 's/scale = ${from}/scale = ${to}/' geometry.py` }, DONE, {
        tool: 'execute_bash',
      }),
    read: () => turn({ command: 'view', path: '/work/geometry.py' }, CODE, { tool: 'str_replace_editor' }),
  },
  'command strings': {
    run: () => turn('python t.py', FAIL, { error: true }),
    change: (from: number, to: number) => turn(`sed -i 's/scale = ${from}/scale = ${to}/' geometry.py`, ''),
    read: () => turn('cat geometry.py', CODE),
  },
};

describe.each(Object.entries(shapes))(
  'a silent change does not end a nudged loop, inputs as %s',
  (_shape, s) => {
    // Two rounds of a change and the same failure; the same read three times (nudged); one more silent
    // change of the same file; the probe's same failure again.
    const steps = [
      s.run(),
      s.change(1, 2),
      s.run(),
      s.change(2, 3),
      s.read(),
      s.read(),
      s.read(),
      s.change(3, 4),
      s.run(),
    ].flat();

    it('the loop that goes on after the nudge, through a change that showed nothing, stops', () => {
      for (const verdicts of [feed(makeStepDetector().detector, steps), restoredEachStep(steps)]) {
        const found = detections(verdicts).map((v) => `${v.action}/${v.loopType}`);
        expect(found).toEqual(['nudge/repeated_action', 'stop/outcome_stagnation']);
      }
    });

    it('a read that shows something new between them still ends the nudge', () => {
      const learned = [
        ...steps.slice(0, -4),
        ...turn('cat notes.txt', 'the scale is read from settings.ini, not geometry.py'),
        ...steps.slice(-4),
      ];
      for (const verdicts of [feed(makeStepDetector().detector, learned), restoredEachStep(learned)]) {
        const found = detections(verdicts).map((v) => `${v.action}/${v.loopType}`);
        expect(found).not.toContain('stop/outcome_stagnation');
      }
    });
  },
);
