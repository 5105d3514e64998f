import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';
import type { StepHistory } from './stepHistory.js';

/**
 * The same action failing with the same normalised error signature `threshold` times with nothing
 * fresh in between. Line numbers, addresses, timestamps, temp paths and durations do not make an
 * error new (core's signature module), so a fix retried with varying noise is still the same failure.
 *
 * @example new SameErrorRule(3) // `pytest` → `AssertionError at a.py:12`, then `:14`, then `:19`: hit
 */
export class SameErrorRule implements StepRule {
  readonly loopType = 'same_error' as const;

  /** @param threshold - failures that make a loop (integer ≥ 2). */
  constructor(private readonly threshold: number) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn' || !event.turn.error) return null;
    const { turn } = event;
    const repeats = history.pairCount(turn.pairKey);
    if (repeats < this.threshold) return null;
    const turns = history.lastWithPair(turn.pairKey, repeats);
    return {
      loopType: this.loopType,
      repeats,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary: `the same action failed with the same error ${repeats} times`,
    };
  }
}
