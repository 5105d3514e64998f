import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled when the agent claims completion while the evidence fails (the evidence command exits
 * non-zero, a required file is missing); progress when a claim is backed by evidence.
 * @example
 * new CompletionWithoutEvidenceSignal(3)
 *   .observe({ iteration: 1, completionClaimed: true, evidenceProblems: ['npm test exited 1'] }).status; // 'stalled'
 */
export class CompletionWithoutEvidenceSignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'completion_without_evidence' as const;

  protected judge({ completionClaimed, evidenceProblems }: IterationObservation): SignalJudgement {
    if (completionClaimed !== true) return { status: 'clear', detail: 'no completion claimed' };
    if (evidenceProblems === null || evidenceProblems === undefined || evidenceProblems.length === 0) {
      return { status: 'progress', detail: 'completion claimed with evidence' };
    }
    return {
      status: 'stalled',
      key: 'unverified',
      detail: `completion claimed without evidence: ${evidenceProblems.join('; ')}`,
    };
  }
}
