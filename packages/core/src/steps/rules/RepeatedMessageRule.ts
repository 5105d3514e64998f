import { jaccard, sketchOf } from '../history/sketch.js';
import type { MessageTurn, StepHistory } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

function messageSketch(message: MessageTurn) {
  if (message.sketch === undefined) message.sketch = sketchOf(message.text);
  return message.sketch;
}

/**
 * The monologue: the same message, or nearly the same (word-set Jaccard ≥ `similarity`; digits never
 * count: "I'm thinking... 0", "... 1", "... 2"), `threshold` times with nothing learned in between.
 * The same sentence before each new edit ("Run the script again.") is not a loop: the edit's result
 * is informative and starts the count again.
 *
 * @example new RepeatedMessageRule(3, 0.8) // 'Let me check.' three times and nothing new: hit
 */
export class RepeatedMessageRule implements StepRule {
  readonly loopType = 'repeated_message' as const;

  /**
   * @param threshold - occurrences that make a loop (integer ≥ 2).
   * @param similarity - least word-set Jaccard similarity of two near-duplicate messages (0..1).
   */
  constructor(
    private readonly threshold: number,
    private readonly similarity: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'message' || event.message.blank) return null;
    const { message } = event;
    // Fewer messages in the monologue than make a loop: no key needs reading.
    if (history.messages.length < this.threshold) return null;
    const key = history.messageKeyOf(message);
    let similar = history.messages.filter((m) => history.messageKeyOf(m) === key);
    if (similar.length < this.threshold) {
      const sketch = messageSketch(message);
      similar = history.messages.filter(
        (m) =>
          m === message ||
          history.messageKeyOf(m) === key ||
          jaccard(sketch, messageSketch(m)) >= this.similarity,
      );
    }
    const repeats = similar.length;
    if (repeats < this.threshold) return null;
    return {
      loopType: this.loopType,
      repeats,
      since: similar[0]?.step ?? message.step,
      evidence: similar.map((m) => m.evidence),
      summary: `the agent wrote the same message ${repeats} times`,
    };
  }
}
