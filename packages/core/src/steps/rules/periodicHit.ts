import type { StepHistory } from '../history/stepHistory.js';
import type { RuleHit, StepLoopType } from './StepRule.js';

/**
 * A hit when the trailing turns repeat a pattern of `period` turns at least `repeats` times in
 * full, and the pattern is not one turn repeated (that is {@link RepeatedActionRule}'s). Shared by
 * the oscillation and cycle rules, so the periodicity test lives in one place.
 */
export function periodicHit(
  history: StepHistory,
  period: number,
  repeats: number,
  loopType: StepLoopType,
  maxEvidence: number,
): RuleHit | null {
  const run = history.periodRun(period);
  if (run < period * (repeats - 1)) return null;
  const pattern = history.last(period);
  if (pattern.every((turn) => turn.pairKey === pattern[0]?.pairKey)) return null;
  const looped = history.last(run + period);
  const seen = Math.floor((run + period) / period);
  const label =
    loopType === 'oscillation'
      ? 'alternated between the same two actions'
      : `repeated a cycle of ${period} actions`;
  return {
    loopType,
    repeats: seen,
    since: looped[0]?.step ?? 0,
    evidence: looped.slice(-maxEvidence).map((turn) => turn.evidence),
    summary: `the agent ${label} ${seen} times with the same results`,
  };
}
