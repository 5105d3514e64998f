import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';
import type { StepHistory } from './stepHistory.js';

/**
 * Debug output that never shows: `threshold` runs in a row of one probe showing none of the print
 * texts the agent typed into the code under test and left there (see `UnseenPrints`). The edited
 * code does not run, so no edit there can take effect. Once nudged, only a run that shows the
 * debug output ends the loop: another edit unseen is the loop again.
 *
 * @example new UnseenPrintsRule(3) // print("Debug - names: …") added to loader.py, `python repro.py` three times without it: hit
 */
export class UnseenPrintsRule implements StepRule {
  readonly loopType = 'near_duplicate' as const;

  /** @param threshold - runs of one probe without the debug output that make a loop (integer ≥ 2). */
  constructor(private readonly threshold: number) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    const run = history.unseenPrints.latest;
    if (event.kind !== 'turn' || run === undefined || run.misses < this.threshold) return null;
    const shown = history.unseenPrints.expected().at(-1) ?? '';
    return {
      loopType: this.loopType,
      repeats: run.misses,
      since: run.since,
      evidence: [...run.evidence],
      summary: `${run.misses} runs of \`${run.label}\` did not show the debug output added to the code under test ("${shown}")`,
      advice:
        "The edited code does not run: find which copy is imported or whether the path is reached (print the module's __file__, a traceback) before editing it again.",
      progress: 'debug',
    };
  }
}
