import type { StepHistory } from '../history/stepHistory.js';
import { turnTargets } from './NearDuplicateRule.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * Outcome stagnation across different actions: the same outcome `sameOutcome` times (a search for
 * a file not searched for before is not counted: it learns the file is absent), or
 * `staleTurns` turns in a row that taught nothing new, whatever the actions were. Different
 * commands that all end in "No matches found", or a run of re-reads and re-runs that only show
 * what was already shown. In both counts, a turn whose action names a file that no other turn of
 * the group names is left out: one command over many files is a sweep. A change that went through
 * (an edit applied, a file written) is left out too: it is an effect on the work, not a look, and
 * a reply that shows lines seen before says where the change went, not that nothing was learned.
 * Changes that take no effect are outcome stagnation's (judged by what the probe shows after them).
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
    // Rejected replies are the rejected-turn rule's: it has its own, slower ladder.
    if (
      event.kind !== 'turn' ||
      event.turn.informative ||
      event.turn.quiet ||
      event.turn.rejected ||
      event.turn.applied
    )
      return null;
    const { turn } = event;
    const same = turn.error ? 0 : (history.outcomeCounts.get(turn.outcomeKey) ?? 0);
    // A search for a file never searched for learns that it is absent: only turns that name no
    // file, or a file another turn of the group names too, count.
    const group =
      same >= this.sameOutcome
        ? history.lastMatching((t) => !t.error && !t.applied && t.outcomeKey === turn.outcomeKey, same)
        : [];
    const targets = group.map(turnTargets);
    const sameTurns = group.filter(
      (_, i) =>
        targets[i] === '' ||
        targets.indexOf(targets[i] as string) !== targets.lastIndexOf(targets[i] as string),
    );
    if (sameTurns.length < this.sameOutcome) sameTurns.length = 0;
    // One action repeated is the repeat rule's; stagnation is about different actions.
    if (sameTurns.some((t) => t.actionKey !== turn.actionKey)) {
      return {
        loopType: this.loopType,
        repeats: sameTurns.length,
        since: sameTurns[0]?.step ?? turn.step,
        evidence: sameTurns.map((t) => t.evidence),
        summary: `${sameTurns.length} different actions gave the same result`,
      };
    }
    if (history.staleSinceInformative < this.staleTurns) return null;
    const streak = history.lastMatching(
      (t) => !t.informative && !t.quiet && !t.rejected && !t.applied,
      history.staleSinceInformative,
    );
    const streakTargets = streak.map(turnTargets);
    const turns = streak.filter(
      (_, i) =>
        streakTargets[i] === '' ||
        streakTargets.indexOf(streakTargets[i] as string) !==
          streakTargets.lastIndexOf(streakTargets[i] as string),
    );
    const stale = turns.length;
    if (stale < this.staleTurns) return null;
    return {
      loopType: this.loopType,
      repeats: stale,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary: `${stale} actions in a row showed nothing that had not been seen before`,
    };
  }
}
