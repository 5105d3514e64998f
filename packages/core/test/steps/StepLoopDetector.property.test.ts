import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Step, StepLoopDetector } from '../../src/entries/steps.js';
import { COUNTS_ONLY, detections, feed, turn } from './helpers.js';

const text = fc.string({ minLength: 1, maxLength: 40 });

describe('StepLoopDetector properties', () => {
  it('a run whose every action and every result is new never detects anything', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(text, { minLength: 1, maxLength: 60, selector: (s) => s.trim().replace(/\s+/g, ' ') }),
        fc.array(text),
        (commands, outputs) => {
          const detector = new StepLoopDetector();
          const steps = commands.flatMap((command, i) =>
            turn(`run ${i} ${command}`, `${outputs[i % Math.max(1, outputs.length)] ?? ''} result-${i}`),
          );
          expect(detections(feed(detector, steps))).toEqual([]);
        },
      ),
    );
  });

  it('a turn repeated n times nudges at repeatThreshold and stops stopAfter hits later', () => {
    fc.assert(
      fc.property(
        text.filter((t) => t.trim() !== ''),
        text,
        fc.boolean(),
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (command, output, error, threshold, stopAfter) => {
          const detector = new StepLoopDetector({
            ...COUNTS_ONLY,
            repeatThreshold: threshold,
            sameErrorThreshold: threshold,
            stopAfter,
          });
          const verdicts = feed(
            detector,
            Array.from({ length: threshold + stopAfter }, () => turn(command, output, { error })).flat(),
          );
          const rungs = verdicts.filter((_, i) => i % 2 === 1).map((v) => v.action);
          const expected = rungs.map((_, i) =>
            i + 1 < threshold
              ? 'continue'
              : i + 1 === threshold
                ? 'nudge'
                : i + 1 === threshold + stopAfter
                  ? 'stop'
                  : 'continue',
          );
          expect(rungs).toEqual(expected);
        },
      ),
    );
  });

  it('never changes the steps it is given', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('action' as const), tool: text, input: fc.jsonValue() }),
            fc.record({ type: fc.constant('observation' as const), output: text, error: fc.boolean() }),
            fc.record({ type: fc.constant('message' as const), text }),
          ),
          { maxLength: 40 },
        ),
        (steps) => {
          const copy = structuredClone(steps);
          feed(new StepLoopDetector(), steps as Step[]);
          expect(steps).toEqual(copy);
        },
      ),
    );
  });
});
