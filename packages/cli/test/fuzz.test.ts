import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzTargets, runFuzz } from './fuzz/fuzzTargets.js';
import { runMcpFuzz } from './fuzz/mcpFuzz.js';

/**
 * Issue 32: every parser (core's stream parsers, scan's transcript parsers, the hook's entry), fed
 * mutations of recorded transcripts and events, gives steps, a documented skip, or a typed
 * `LoopGuardError` naming what was wrong: never another error. Bounded to seconds; the million-input
 * run is `scripts/bench-fuzz.mjs`.
 */
describe('fuzzed input (issue 32)', () => {
  const targets = fuzzTargets();

  it('has seeds for every target', () => {
    expect(targets.map((t) => t.name)).toHaveLength(11);
    for (const target of targets) expect(target.seeds.length, target.name).toBeGreaterThan(2);
  });

  it('gives steps, a skip or a typed error for every input, in 6,000 fuzzed lines', () => {
    const counts = runFuzz(6000, 32, targets);
    expect(counts.untyped).toEqual([]);
    expect(counts.outcomes.untyped).toBe(0);
    expect(counts.unnamed).toBe(0);
    // the fuzz reaches every outcome: it is not all rejected, nor all read
    expect(counts.outcomes.steps).toBeGreaterThan(1000);
    expect(counts.outcomes.typed).toBeGreaterThan(50);
    expect(counts.outcomes.skip).toBeGreaterThan(50);
  });

  it('holds for any seed of the mutator', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const counts = runFuzz(400, seed, targets);
        expect(counts.untyped).toEqual([]);
      }),
      { numRuns: 10 },
    );
  });

  it('the MCP server answers every request, never with an internal error, in 800 fuzzed messages', async () => {
    const counts = await runMcpFuzz(800, 38);
    expect(counts.samples).toEqual([]);
    expect(counts.untyped).toBe(0);
    expect(counts.unanswered).toBe(0);
    expect(counts.extra).toBe(0);
    // the fuzz reaches every kind of reply
    expect(counts.replies.results - counts.replies.toolErrors).toBeGreaterThan(200);
    expect(counts.replies.toolErrors).toBeGreaterThan(20);
    expect(counts.replies.errors).toBeGreaterThan(20);
  }, 120_000);
});
