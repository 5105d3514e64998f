import { ERROR_LINE } from '../../signatures/errorSignature.js';
import type { StepHistory } from '../history/stepHistory.js';
import type { Turn } from '../history/turn.js';
import { shorten } from '../keys/shorten.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * Failures of the same class `threshold` times with nothing learned in between, or of the same
 * action `verbatim` times in a row, or the same action failing `threshold` times in a row (whatever
 * the error texts between) with an error already seen. The class is the
 * first error line with digits and the command's own words left out, so the same command failing
 * with texts that differ only in noise (line numbers, a temp path, a counter), a fix retried with
 * small variations, and different commands hitting the same wall (`cd fastjson`, `cd fastxml`: "No
 * such file or directory") are one loop. A new error is informative and starts the count again.
 * And the same call failing the same way `threshold` times with nothing changed between, whatever
 * was read between (see `retriedCalls.ts`).
 *
 * @example new SameErrorRule(3) // `javac A.java` → "javac: command not found", three times: hit
 */
export class SameErrorRule implements StepRule {
  readonly loopType = 'same_error' as const;

  /**
   * @param threshold - failures of one class that make a loop (integer ≥ 2).
   * @param verbatim - failures of one action with one class in a row, nothing between but messages,
   *   that make a loop (integer ≥ 2).
   * @param verbatimChange - the same for a change (an edit, a write) (integer ≥ 2).
   */
  constructor(
    private readonly threshold: number,
    private readonly verbatim: number,
    private readonly verbatimChange: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    // Rejected replies are the rejected-turn rule's, whatever notice the harness gave.
    if (event.kind !== 'turn' || !event.turn.error || event.turn.rejected) return null;
    const { turn } = event;
    // A refused change (the editor's "did not appear verbatim", "File already exists") is judged by
    // the tool's own streak: once nudged, only an attempt that goes through ends the loop.
    const refused = turn.probeRun?.kind === 'change' && turn.probeRun.probe === '';
    const progress = refused ? ('rejection' as const) : ('turn' as const);
    const streak = refused ? history.rejections.of(turn.tool) : undefined;
    if (streak !== undefined && streak.count >= this.threshold) {
      return {
        loopType: this.loopType,
        repeats: streak.count,
        since: streak.evidence[0]?.step ?? turn.step,
        evidence: streak.evidence,
        summary: `the same rejection after every attempt: ${streak.count} attempts of \`${turn.tool}\` were refused with the same error`,
        advice: `The tool refuses every attempt the same way: read its message and the current text of the file, then change the request (another anchor, another command of the tool) before trying again.`,
        progress,
      };
    }
    const hit = this.sameFailure(turn, history, progress);
    const retried = this.retried(turn, history);
    if (hit === null || retried === null) return hit ?? retried;
    // One loop, told once: when the call's own count reaches further back, the message says so
    // (the nudge said it); what ends the loop stays the streak's.
    return retried.since < hit.since && retried.repeats >= hit.repeats ? { ...retried, progress } : hit;
  }

  /** The same class of failure `threshold` times, or the same action failing in a row (`null`: neither). */
  private sameFailure(turn: Turn, history: StepHistory, progress: 'turn' | 'rejection'): RuleHit | null {
    const sameClass = history.errorCounts.get(turn.errorClass) ?? 0;
    const verbatim = history.verbatimRun >= (history.lastWasChange ? this.verbatimChange : this.verbatim);
    if (sameClass < this.threshold && !verbatim) {
      // The same action failing again and again, back to an error it already showed, is a loop
      // whatever the texts between said.
      if (history.failingRun < this.threshold || turn.informative) return null;
      const turns = history.last(history.failingRun);
      return {
        loopType: this.loopType,
        repeats: history.failingRun,
        since: turns[0]?.step ?? turn.step,
        evidence: turns.map((t) => t.evidence),
        summary: `the same action failed ${history.failingRun} times in a row`,
        progress,
      };
    }
    const repeats = sameClass;
    const turns = history.lastMatching(
      (t) => t.error && !t.rejected && t.errorClass === turn.errorClass,
      repeats,
    );
    const actions = new Set(turns.map((t) => t.actionKey)).size;
    const line = firstErrorLine(turn.evidence.output);
    return {
      loopType: this.loopType,
      repeats,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary:
        actions === 1
          ? `the same action failed with the same error ${repeats} times`
          : `${actions} different attempts failed with the same error ${repeats} times`,
      ...(line === undefined
        ? {}
        : {
            advice: `Every attempt ends in \`${line}\`: find the code that raises it and change that (or the command) before running it again.`,
          }),
      progress,
    };
  }

  /**
   * The same call failing the same way `threshold` times since the last change, whatever was read
   * between: reading cannot make an identical call go otherwise. Once nudged, only a change or the
   * call going otherwise ends it, so its next identical failure stops.
   */
  private retried(turn: Turn, history: StepHistory): RuleHit | null {
    const call = history.retries.of(turn.actionKey);
    if (call === undefined || call.count < this.threshold || call.errorClass !== turn.errorClass) return null;
    return {
      loopType: this.loopType,
      repeats: call.count,
      since: call.evidence[0]?.step ?? turn.step,
      evidence: call.evidence,
      summary: `the same call failed the same way ${call.count} times, with nothing changed between`,
      advice:
        'Reading more does not change what this call does: change what it depends on (the command, a path, the code, the environment) or try another way before running it again.',
      progress: 'retry',
    };
  }
}

/** The last error line of a shortened output, for the advice (`ValueError: bad row`); `undefined` when none. */
function firstErrorLine(output: string | undefined): string | undefined {
  if (output === undefined) return undefined;
  const lines = output.split('\n').filter((line) => ERROR_LINE.test(line.trim()));
  const last = lines[lines.length - 1]?.trim();
  return last === undefined || last === '' ? undefined : shorten(last, 120);
}
