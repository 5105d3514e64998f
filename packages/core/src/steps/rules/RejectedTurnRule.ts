import type { StepHistory } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * Rejected turns repeated: a hit at `threshold` replies in a row (the nudge) and again from
 * `stopAt` on (the stop); the harness answers each rejected reply itself, so the hits between add
 * nothing. `threshold` replies in a row (nothing learned, no accepted action
 * between) that the harness could not run: an observation with no action before it (a format error: prose where the command
 * belongs, two commands in one reply), an action whose input is empty or whitespace, an empty or
 * whitespace-only message.
 *
 * @example new RejectedTurnRule(3) // three replies without a command block: hit
 */
export class RejectedTurnRule implements StepRule {
  readonly loopType = 'rejected_turn' as const;

  /**
   * @param threshold - rejected replies that make a loop (integer ≥ 2).
   * @param stopAt - rejected replies in a row that hit again (integer > `threshold`).
   */
  constructor(
    private readonly threshold: number,
    private readonly stopAt: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    const rejected = event.kind === 'turn' ? event.turn.rejected : event.message.blank;
    if (!rejected) return null;
    const repeats = history.rejectedSinceInformative;
    if (repeats !== this.threshold && repeats < this.stopAt) return null;
    const turns = history.lastMatching((t) => t.rejected, repeats);
    const evidence = turns.map((t) => t.evidence);
    if (event.kind === 'message') evidence.push(event.message.evidence);
    return {
      loopType: this.loopType,
      repeats,
      since: evidence[0]?.step ?? 0,
      evidence,
      summary: `${repeats} replies were rejected (no command, an empty reply, or a format error)`,
    };
  }
}
