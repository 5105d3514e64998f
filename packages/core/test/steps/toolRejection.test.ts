import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

const FILE = '/workspace/repo/src/parse.py';

/** The editor's refusal of one attempt, with the lines it names changing. */
const multiple = (i: number) =>
  `ERROR: No replacement was performed. Multiple occurrences of old_str \`return x\` in lines [${12 + i}, ${40 + i}]. Please ensure it is unique.`;

const shapes = {
  strings: {
    attempt: (i: number, refusal: string | null): Step[] =>
      turn(
        `edit ${12 + i}:${12 + i}\n    return x${i}\nend_of_edit`,
        refusal ?? `[File: ${FILE}]\n${12 + i}: return x${i}`,
        {
          error: refusal !== null,
        },
      ),
    read: (i: number): Step[] => turn(`grep -n "return" src/part${i}.py`, `${i}: return something new ${i}`),
  },
  objects: {
    attempt: (i: number, refusal: string | null): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path: FILE, old_str: 'return x', new_str: `return x${i}` },
      },
      refusal === null
        ? { type: 'observation', output: `The file ${FILE} has been edited.\n    12\treturn x${i}` }
        : { type: 'observation', output: refusal, error: true },
    ],
    read: (i: number): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'view', path: `/workspace/repo/src/part${i}.py` },
      },
      { type: 'observation', output: `     ${i}\treturn something new ${i}` },
    ],
  },
};

describe.each(Object.entries(shapes))(
  'the same tool rejection after every attempt, inputs as %s',
  (_shape, s) => {
    it('refused the same way after every attempt, with reads of new code between: nudge, then stop', () => {
      const steps = [0, 1, 2, 3].flatMap((i) => [...s.read(i), ...s.attempt(i, multiple(i))]);
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'same_error'],
        ['stop', 'same_error'],
      ]);
      expect(found[1]?.message).toMatch(/refused with the same error|failed/);
    });

    it('an attempt that goes through ends the streak: no stop', () => {
      const steps = [
        ...[0, 1, 2].flatMap((i) => [...s.read(i), ...s.attempt(i, multiple(i))]),
        ...s.attempt(3, null),
        ...[4, 5].flatMap((i) => [...s.read(i), ...s.attempt(i, multiple(i))]),
      ];
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.filter((v) => v.action === 'stop')).toEqual([]);
    });

    it('refusals of different kinds are not one streak', () => {
      const refusals = [
        multiple(0),
        'ERROR: File already exists at: /workspace/repo/src/parse.py. Cannot overwrite files using command `create`.',
        multiple(2),
        'ERROR: Parameter `old_str` is required for command: str_replace.',
      ];
      const steps = refusals.flatMap((r, i) => [...s.read(i), ...s.attempt(i, r)]);
      expect(detections(feed(makeStepDetector().detector, steps)).filter((v) => v.action === 'stop')).toEqual(
        [],
      );
    });
  },
);
