import type { StepHistory } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/** Calls in a row of one action whose results are not known that make a loop (Gemini CLI's own threshold). */
export const BLIND_REPEATS = 5;

/**
 * The same action with the same outcome (a non-failure) `threshold` times with nothing learned in
 * between, or `verbatim` times in a row. Failures are left to {@link SameErrorRule}. An action whose
 * result the caller does not report (no observation) is a loop only when it is called
 * {@link BLIND_REPEATS} times in a row: without results, nothing shows that nothing was learned.
 *
 * @example new RepeatedActionRule(3) // `cat a.py` → same text, three times: hit
 */
export class RepeatedActionRule implements StepRule {
  readonly loopType = 'repeated_action' as const;

  /**
   * @param threshold - occurrences that make a loop (integer ≥ 2).
   * @param verbatim - occurrences in a row, nothing between but messages, that make a loop (integer ≥ 2).
   * @param verbatimChange - the same for a change (an edit, a write): repeating one is certain sooner (integer ≥ 2).
   */
  constructor(
    private readonly threshold: number,
    private readonly verbatim: number,
    private readonly verbatimChange: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn' || event.turn.error || event.turn.informative) return null;
    const { turn } = event;
    const blind = turn.outcomeKey === 0;
    // Without results, a call is judged when the next one arrives: the same call again is one more.
    const repeats = blind
      ? history.blindRun + (turn.calledAgain === true ? 1 : 0)
      : (history.pairCounts.get(turn.pairKey) ?? 0);
    const verbatim = history.verbatimRun >= (history.lastWasChange ? this.verbatimChange : this.verbatim);
    if (blind ? repeats < BLIND_REPEATS : repeats < this.threshold && !verbatim) return null;
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
