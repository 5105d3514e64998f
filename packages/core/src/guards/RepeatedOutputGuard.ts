import type { OutputSignature } from '../signatures/outputSignature.js';
import type { Guard, GuardState, GuardVerdict } from './Guard.js';
import { repeatedSignature } from './repeatedSignature.js';
import { LOOP_THRESHOLD } from './safetyConfig.js';

/**
 * Blocks when the last 3 outputs have the same signature (seed 001's loop detection): the same
 * failing tests, error type and location, edits, or normalised text. Infrastructure errors and
 * exempt outputs are skipped; iterations without output are ignored.
 * @example new RepeatedOutputGuard() // message: 'Loop detected - same output repeated'
 */
export class RepeatedOutputGuard implements Guard {
  readonly name = 'repeated_output';

  /** Blocks when the last {@link LOOP_THRESHOLD} counted outputs share a signature. */
  check(state: GuardState): GuardVerdict | null {
    const counted = state.history.filter(
      (item): item is typeof item & { signature: OutputSignature } =>
        item.signature !== null && !item.infrastructure && !item.exempt,
    );
    const key = repeatedSignature(
      counted.map((item) => item.signature),
      LOOP_THRESHOLD,
    );
    if (key === null) return null;
    return {
      guard: this.name,
      message: 'Loop detected - same output repeated',
      evidence: {
        signature: key,
        threshold: LOOP_THRESHOLD,
        iterations: counted.slice(-LOOP_THRESHOLD).map((item) => item.entry.iteration),
      },
    };
  }
}
