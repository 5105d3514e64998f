import type { StepHistory } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * What the agent looks for after each change never shows: `threshold` runs of one probe, each after
 * changes only to files holding print texts the agent typed into the code under test, showing none
 * of them; or `threshold` searches of one file (`grep … example.svg`), each after a change to the
 * code under test, finding nothing (see `UnseenPrints`). The edited code does not run, so no edit
 * there can take effect. Once nudged, only a run that shows the debug output, or a search that
 * finds something, ends the loop.
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
    const summary =
      run.pattern === undefined
        ? `${run.misses} runs of \`${run.label}\` did not show the debug output added to the code under test ("${history.unseenPrints.expected().at(-1) ?? ''}")`
        : `${run.misses} searches of \`${run.probe.slice('grep '.length)}\`, each after a change to the code under test, found nothing (\`${run.pattern}\`)`;
    return {
      loopType: this.loopType,
      repeats: run.misses,
      since: run.since,
      evidence: [...run.evidence],
      summary,
      advice:
        "The edited code does not run: find which copy is imported or whether the path is reached (print the module's __file__, a traceback) before editing it again.",
      progress: 'debug',
    };
  }
}
