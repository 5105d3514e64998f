import { errorSignature } from '../signatures/errorSignature.js';
import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled when the iteration's output reports an error; the streak counts the same normalised error
 * signature (line numbers, timestamps, ids removed) in a row. Infrastructure errors never count.
 * @example
 * const s = new SameErrorSignal(5);
 * s.observe({ iteration: 1, output: 'TypeError: x at a.ts:1' });
 * s.observe({ iteration: 2, output: 'TypeError: x at a.ts:9' }).streak; // 2
 */
export class SameErrorSignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'same_error' as const;

  protected judge({ output }: IterationObservation): SignalJudgement {
    if (output === undefined) return { status: 'unavailable', detail: 'no output' };
    const error = errorSignature(output);
    if (error.kind !== 'failure') return { status: 'clear', detail: 'no error' };
    return { status: 'stalled', key: error.signature, detail: `error: ${error.signature}` };
  }
}
