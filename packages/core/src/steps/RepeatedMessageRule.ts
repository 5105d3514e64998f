import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';
import type { StepHistory } from './stepHistory.js';

/**
 * The same message (normalised, case-insensitive) `threshold` times with no fresh turn in between.
 * The same sentence before each new edit ("Run the script again.") is not a loop: the new edit is
 * fresh and restarts the count.
 *
 * @example new RepeatedMessageRule(3) // 'Let me check.' three times and nothing new: hit
 */
export class RepeatedMessageRule implements StepRule {
  readonly loopType = 'repeated_message' as const;

  /** @param threshold - occurrences that make a loop (integer ≥ 2). */
  constructor(private readonly threshold: number) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'message' || event.message.key === '') return null;
    const { message } = event;
    const repeats = history.messageCount(message.key);
    if (repeats < this.threshold) return null;
    const first = history.firstMessage(message.key);
    return {
      loopType: this.loopType,
      repeats,
      since: first?.step ?? message.step,
      evidence: [first?.evidence ?? message.evidence, message.evidence],
      summary: `the agent wrote the same message ${repeats} times`,
    };
  }
}
