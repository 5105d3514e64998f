import type { IterationObservation } from './breakerTypes.js';
import { reportedError } from './reportedError.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled when the iteration's output reports an error ({@link reportedError}: never a diff line, a
 * file view or a word in code); the streak counts the same normalised error (line numbers,
 * timestamps, ids removed) in a row. Infrastructure iterations are never judged.
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
    const error = reportedError(output);
    if (error === null) return { status: 'clear', detail: 'no error' };
    return { status: 'stalled', key: error, detail: `error: ${error}` };
  }
}
