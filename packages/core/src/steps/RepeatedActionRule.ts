import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';
import type { StepHistory } from './stepHistory.js';

/**
 * The same action with the same outcome (a non-failure) `threshold` times with nothing learned in
 * between, or `verbatim` times in a row. Failures are left to {@link SameErrorRule}.
 *
 * @example new RepeatedActionRule(3) // `cat a.py` → same text, three times: hit
 */
export class RepeatedActionRule implements StepRule {
  readonly loopType = 'repeated_action' as const;

  /**
   * @param threshold - occurrences that make a loop (integer ≥ 2).
   * @param verbatim - occurrences in a row, nothing between but messages, that make a loop (integer ≥ 2).
   */
  constructor(
    private readonly threshold: number,
    private readonly verbatim: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn' || event.turn.error || event.turn.informative) return null;
    const { turn } = event;
    const repeats = history.pairCounts.get(turn.pairKey) ?? 0;
    if (repeats < this.threshold && history.verbatimRun < this.verbatim) return null;
    const turns = history.lastMatching((t) => t.pairKey === turn.pairKey, repeats);
    return {
      loopType: this.loopType,
      repeats,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary: `the same action returned the same result ${repeats} times`,
    };
  }
}
