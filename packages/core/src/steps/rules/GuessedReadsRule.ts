import type { StepHistory } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * A search by guessing: `threshold` reads of one file, each after a message naming the one thing
 * the agent looks for, none of them showing it, and no change between (see `SoughtNames`). Views
 * of guessed line ranges hunting for a method are the family; reading a file range after range for
 * what it holds names nothing (or many things) and is not counted. Once nudged, only a read that
 * shows the name, or a change, ends the loop: another guess is the loop again.
 *
 * @example new GuessedReadsRule(3) // "Let me check `build_where` in another range", views 1000-1100, 500-600, 800-900: hit
 */
export class GuessedReadsRule implements StepRule {
  readonly loopType = 'near_duplicate' as const;

  /** @param threshold - reads of one file missing the name sought that make a loop (integer ≥ 2). */
  constructor(private readonly threshold: number) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    const search = history.searches.latest;
    if (event.kind !== 'turn' || search === undefined || search.misses < this.threshold) return null;
    return {
      loopType: this.loopType,
      repeats: search.misses,
      since: search.since,
      evidence: [...search.evidence],
      summary: `${search.misses} reads of ${search.path} did not show \`${search.name}\`, the name being looked for`,
      advice: `Search the file for \`${search.name}\` by name (for example \`grep -n ${search.name} ${search.path}\`) instead of guessing where it is.`,
      progress: 'search',
    };
  }
}
