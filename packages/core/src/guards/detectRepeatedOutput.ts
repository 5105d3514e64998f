import { errorSignature } from '../signatures/errorSignature.js';
import { guardStateOf } from './guardState.js';
import { RepeatedOutputGuard } from './RepeatedOutputGuard.js';
import type { SignatureExemption } from './signatureExemption.js';

/**
 * Seed 001's loop detection, decided by {@link RepeatedOutputGuard}: the last 3 outputs (the fixed loop threshold) have the same
 * signature — the same failing tests, error type and location, edits, or normalised text — not
 * merely the same raw text. Infrastructure errors and exempt outputs are left out first.
 *
 * @param recentOutputs - outputs of the latest iterations, oldest first.
 * @param exemptSignatures - signatures whose repetition is legitimate. @default []
 * @example
 * detectRepeatedOutput(['Error: boom at a.ts:1:1 (3ms)', 'Error: boom at a.ts:9:4 (5ms)', 'Error: boom at a.ts:2:2 (1ms)']); // true
 */
export function detectRepeatedOutput(
  recentOutputs: readonly string[],
  exemptSignatures: readonly SignatureExemption[] = [],
): boolean {
  const state = guardStateOf({
    iteration: recentOutputs.length + 1,
    startedAt: null,
    now: 0,
    history: recentOutputs.map((output, i) => ({ iteration: i + 1, output })),
    exemptions: exemptSignatures,
  });
  return new RepeatedOutputGuard().check(state) !== null;
}

/**
 * Errors in a row at the end of `outputs`, for seed 001's `consecutiveErrors` argument.
 * Infrastructure errors are skipped (they neither count nor break the run); an output without an
 * error ends the run. With `sameSignature` (seed 001: "same error type"), only errors with the
 * newest error's normalised signature count.
 *
 * @param outputs - outputs of the iterations so far, oldest first.
 * @param options - `sameSignature`: count only repeats of the newest error. @default { sameSignature: true }
 * @example countConsecutiveErrors(['ok', 'Error: a', 'Error: b'], { sameSignature: false }); // 2
 */
export function countConsecutiveErrors(
  outputs: readonly string[],
  options: { sameSignature?: boolean } = {},
): number {
  const sameSignature = options.sameSignature ?? true;
  let count = 0;
  let newest: string | undefined;
  for (let i = outputs.length - 1; i >= 0; i--) {
    const error = errorSignature(outputs[i] ?? '');
    if (error.kind === 'infrastructure') continue;
    if (error.kind === 'none') break;
    newest ??= error.signature;
    if (sameSignature && error.signature !== newest) break;
    count++;
  }
  return count;
}
