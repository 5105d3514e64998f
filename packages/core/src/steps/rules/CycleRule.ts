import type { StepHistory } from '../history/stepHistory.js';
import { periodicHit } from './periodicHit.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * A cycle of 3 to `maxLength` turns repeated `repeats` times in full (A-B-C-A-B-C). The shortest
 * matching cycle is reported.
 *
 * @example new CycleRule(2, 5, 10) // edit, test, revert, edit, test, revert with the same results: hit
 */
export class CycleRule implements StepRule {
  readonly loopType = 'cycle' as const;

  /**
   * @param repeats - full repetitions of the cycle that make a loop (integer ≥ 2).
   * @param maxLength - longest cycle looked for (3..8).
   * @param maxEvidence - most turns kept as evidence.
   */
  constructor(
    private readonly repeats: number,
    private readonly maxLength: number,
    private readonly maxEvidence: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn') return null;
    for (let period = 3; period <= this.maxLength; period++) {
      const hit = periodicHit(history, period, this.repeats, this.loopType, this.maxEvidence);
      if (hit !== null) return hit;
    }
    return null;
  }
}
