import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BreakerTransition, StagnationBreaker } from '../../src/entries/breaker.js';
import { ManualClock } from '../../src/index.js';

const observation = fc.record({
  filesChanged: fc.option(fc.nat({ max: 3 }), { nil: null }),
  output: fc.constantFrom(
    'ok',
    'TypeError: x at a.ts:1',
    'TypeError: x at a.ts:7',
    'Error: 429 Too Many Requests',
  ),
  infra: fc.boolean(),
  advance: fc.nat({ max: 5000 }),
});

describe('StagnationBreaker properties', () => {
  it('transitions chain (each from is the previous to), opens only grow, state matches the last transition', () => {
    fc.assert(
      fc.property(
        fc.array(observation, { maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.nat({ max: 3000 }),
        fc.boolean(),
        (steps, threshold, cooldownMs, autoReset) => {
          const clock = new ManualClock(0);
          const breaker = new StagnationBreaker({
            runId: 'p',
            stagnationThreshold: threshold,
            cooldownMs,
            autoReset,
            clock,
          });
          const transitions: BreakerTransition[] = [];
          breaker.on('breakerStateChanged', (t) => transitions.push(t));
          let opens = 0;
          steps.forEach((step, i) => {
            clock.advance(step.advance);
            const verdict = breaker.record({
              iteration: i + 1,
              filesChanged: step.filesChanged,
              output: step.output,
              infrastructure: step.infra ? 'rate_limit' : null,
            });
            if (step.infra) expect(verdict.readings).toEqual([]);
            expect(breaker.opens).toBeGreaterThanOrEqual(opens);
            opens = breaker.opens;
          });
          const finalState = breaker.snapshot().state; // may apply an elapsed cooldown (a transition)
          let previous = 'CLOSED';
          for (const t of transitions) {
            expect(t.from).toBe(previous);
            expect(t.to).not.toBe(t.from);
            previous = t.to;
          }
          expect(finalState).toBe(previous);
          expect(transitions.filter((t) => t.to === 'OPEN')).toHaveLength(breaker.opens);
        },
      ),
    );
  });

  it('never opens while every iteration changes files and reports no error', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 100 }), (changes) => {
        const breaker = new StagnationBreaker({ runId: 'p', clock: new ManualClock(0) });
        changes.forEach((filesChanged, i) => {
          expect(breaker.record({ iteration: i + 1, filesChanged, output: 'ok' }).state).toBe('CLOSED');
        });
      }),
    );
  });

  it('a snapshot round-trips through JSON to an equivalent breaker', () => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 30 }), (steps) => {
        const clock = new ManualClock(0);
        const a = new StagnationBreaker({ runId: 'p', cooldownMs: 10_000, clock });
        steps.forEach((s, i) => {
          a.record({ iteration: i + 1, filesChanged: s.filesChanged, output: s.output });
        });
        const b = new StagnationBreaker({
          runId: 'p',
          cooldownMs: 10_000,
          clock,
          snapshot: JSON.parse(JSON.stringify(a.snapshot())),
        });
        expect(b.snapshot()).toEqual(a.snapshot());
        const next = { iteration: 99, filesChanged: 0, output: 'ok' };
        expect(b.record(next)).toEqual(a.record(next));
      }),
    );
  });
});
