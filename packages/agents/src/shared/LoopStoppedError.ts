import { RunError } from '@loopguard/core';
import type { StepVerdict } from '@loopguard/core/steps';

/**
 * The error an adapter raises (or hands to the framework) when the step-level detector stops a run:
 * code `aborted`, the stop message as its message, the verdict attached.
 * @example
 * try { await run(agent, task); } catch (error) { if (error instanceof LoopStoppedError) log(error.verdict.loopType); }
 */
export class LoopStoppedError extends RunError {
  /** The `stop` verdict: loop type, repeats, evidence, message. */
  readonly verdict: StepVerdict;

  /** @param verdict - the detector's `stop` verdict. */
  constructor(verdict: StepVerdict) {
    super('aborted', verdict.message ?? `stopped by loopguard's loop detector (${verdict.loopType})`);
    this.verdict = verdict;
  }
}
