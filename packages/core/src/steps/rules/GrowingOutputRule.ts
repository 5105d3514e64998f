import type { StepHistory } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * The same action `threshold` times while its output only accumulates: the blocks repeated inside it
 * grow (or shrink) in number, but no line is new (a file that gains the same block at every edit).
 * Its outcome (the set of distinct line shapes) stays the same, so nothing is learned.
 *
 * @example new GrowingOutputRule(3) // `edit 1:1` inserting the same block, the file 23 → 41 → 59 lines: hit
 */
export class GrowingOutputRule implements StepRule {
  readonly loopType = 'growing_output' as const;

  /** @param threshold - occurrences of the action that make a loop (integer ≥ 2). */
  constructor(private readonly threshold: number) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn' || event.turn.error || event.turn.informative) return null;
    const { turn } = event;
    const repeats = history.pairCounts.get(turn.pairKey) ?? 0;
    if (repeats < this.threshold) return null;
    const turns = history.lastMatching((t) => t.pairKey === turn.pairKey, repeats);
    const previous = turns[turns.length - 2];
    if (previous === undefined || previous.duplicates === turn.duplicates) return null;
    return {
      loopType: this.loopType,
      repeats,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary: `the same action ran ${repeats} times while its output only accumulated what it already showed (${previous.outputLength} → ${turn.outputLength} characters)`,
    };
  }
}
