import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';
import type { StepHistory } from './stepHistory.js';

/**
 * Outcome stagnation across different actions: the same outcome `sameOutcome` times, or
 * `staleTurns` turns in a row that taught nothing new, whatever the actions were. Different
 * commands that all end in "No matches found", or a run of re-reads and re-runs that only show
 * what was already shown.
 *
 * @example new StagnationRule(4, 8) // four different searches, "No matches found" each time: hit
 */
export class StagnationRule implements StepRule {
  readonly loopType = 'stagnation' as const;

  /**
   * @param sameOutcome - stale turns with one (non-failure) outcome that make a loop (integer ≥ 2).
   * @param staleTurns - stale turns in a row, any outcomes, that make a loop (integer ≥ 2).
   */
  constructor(
    private readonly sameOutcome: number,
    private readonly staleTurns: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn' || event.turn.informative || event.turn.quiet) return null;
    const { turn } = event;
    const same = turn.error ? 0 : (history.outcomeCounts.get(turn.outcomeKey) ?? 0);
    const sameTurns =
      same >= this.sameOutcome
        ? history.lastMatching((t) => !t.error && t.outcomeKey === turn.outcomeKey, same)
        : [];
    // One action repeated is the repeat rule's; stagnation is about different actions.
    if (sameTurns.some((t) => t.actionKey !== turn.actionKey)) {
      return {
        loopType: this.loopType,
        repeats: same,
        since: sameTurns[0]?.step ?? turn.step,
        evidence: sameTurns.map((t) => t.evidence),
        summary: `${same} different actions gave the same result`,
      };
    }
    const stale = history.staleSinceInformative;
    if (stale < this.staleTurns) return null;
    const turns = history.lastMatching((t) => !t.informative && !t.quiet, stale);
    return {
      loopType: this.loopType,
      repeats: stale,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary: `${stale} actions in a row showed nothing that had not been seen before`,
    };
  }
}
