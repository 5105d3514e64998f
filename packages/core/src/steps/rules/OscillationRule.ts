import type { StepHistory } from '../history/stepHistory.js';
import { periodicHit } from './periodicHit.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * A-B-A-B: two turns (action with its observation) alternating `repeats` times in full.
 *
 * @example new OscillationRule(2, 10) // A, B, A, B with the same results: hit on the fourth turn
 */
export class OscillationRule implements StepRule {
  readonly loopType = 'oscillation' as const;

  /**
   * @param repeats - full A-B repetitions that make a loop (integer ≥ 2).
   * @param maxEvidence - most turns kept as evidence.
   */
  constructor(
    private readonly repeats: number,
    private readonly maxEvidence: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn') return null;
    return periodicHit(history, 2, this.repeats, this.loopType, this.maxEvidence);
  }
}
