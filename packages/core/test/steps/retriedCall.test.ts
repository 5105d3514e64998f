import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { StepLoopDetector } from '../../src/entries/steps.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

const MISSING = 'src/main/java/org/acme/$Types.java';
/** The call's failure: the shell ate `$Types`, so the same call fails the same way every time. */
const notFound = `File src/main/java/org/acme/.java not found`;

const shapes = {
  strings: {
    open: (): Step[] => turn(`open ${MISSING}`, notFound, { tool: 'open', error: true }),
    opened: (): Step[] =>
      turn(`open ${MISSING}`, `[File: ${MISSING} (120 lines total)]\n1:package org.acme;`, { tool: 'open' }),
    read: (i: number): Step[] =>
      turn(`ls src/main/java/org/acme/part${i}`, `$Types.java\nPart${i}.java\nReader${i}.java`),
    change: (): Step[] => turn('pip install acme-tools', 'Successfully installed acme-tools-1.0'),
  },
  objects: {
    open: (): Step[] => [
      { type: 'action', tool: 'str_replace_editor', input: { command: 'view', path: `/repo/${MISSING}` } },
      { type: 'observation', output: notFound, error: true },
    ],
    opened: (): Step[] => [
      { type: 'action', tool: 'str_replace_editor', input: { command: 'view', path: `/repo/${MISSING}` } },
      { type: 'observation', output: `     1\tpackage org.acme;\n     2\tclass Types {}` },
    ],
    read: (i: number): Step[] => [
      {
        type: 'action',
        tool: 'execute_bash',
        input: { command: `ls /repo/src/main/java/org/acme/part${i}` },
      },
      { type: 'observation', output: `$Types.java\nPart${i}.java\nReader${i}.java` },
    ],
    change: (): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command: 'pip install acme-tools' } },
      { type: 'observation', output: 'Successfully installed acme-tools-1.0' },
    ],
  },
};

describe.each(Object.entries(shapes))('the same call failing the same way, inputs as %s', (_shape, s) => {
  it('retried with only reads of new things between: nudge at the third failure, stop at the fourth', () => {
    const steps = [0, 1, 2, 3].flatMap((i) => [...s.read(i), ...s.open()]);
    const verdicts = feed(makeStepDetector().detector, steps);
    const found = detections(verdicts);
    expect(found.map((v) => [v.action, v.loopType])).toEqual([
      ['nudge', 'same_error'],
      ['stop', 'same_error'],
    ]);
    // The nudge falls on the third failure, the stop on the fourth.
    expect(found.map((v) => v.step)).toEqual([steps.length - 5, steps.length - 1]);
    expect(found[0]?.message).toMatch(/the same call failed the same way 3 times/);
    expect(found[1]?.evidence).toHaveLength(3);
  });

  it('the stop tells the loop the nudge told: the same count from the same call', () => {
    // Read once, then retried back to back: the streak since the read is shorter than the call's count.
    const steps = [...s.read(0), ...s.open(), ...s.read(1), ...s.open(), ...s.open(), ...s.open()];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((v) => v.action)).toEqual(['nudge', 'stop']);
    expect(found[0]?.message).toMatch(
      /failed the same way 3 times, with nothing changed between, since call 2\./,
    );
    expect(found[1]?.message).toMatch(
      /failed the same way 4 times, with nothing changed between, since call 2\./,
    );
  });

  it('a change between the retries starts the count again: no stop', () => {
    const steps = [
      ...[0, 1].flatMap((i) => [...s.read(i), ...s.open()]),
      ...s.change(),
      ...[2, 3].flatMap((i) => [...s.read(i), ...s.open()]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });

  it('once nudged, a change ends the loop: the next failure is not a stop', () => {
    const steps = [
      ...[0, 1, 2].flatMap((i) => [...s.read(i), ...s.open()]),
      ...s.change(),
      ...[3, 4].flatMap((i) => [...s.read(i), ...s.open()]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual(['nudge']);
  });

  it('the call going through ends its count', () => {
    const steps = [
      ...[0, 1].flatMap((i) => [...s.read(i), ...s.open()]),
      ...s.opened(),
      ...[2, 3].flatMap((i) => [...s.read(i), ...s.open()]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });

  it('the count and the nudge survive a snapshot', () => {
    const steps = [0, 1, 2, 3].flatMap((i) => [...s.read(i), ...s.open()]);
    const cut = steps.length - 2;
    const first = makeStepDetector().detector;
    feed(first, steps.slice(0, cut));
    const restored = StepLoopDetector.restore(JSON.parse(JSON.stringify(first.snapshot())));
    expect(detections(feed(restored, steps.slice(cut))).map((v) => v.action)).toEqual(['stop']);
  });
});
