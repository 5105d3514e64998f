import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled when the iteration changed no file against the commit it started from (so an agent that
 * commits its own work is progressing); unavailable outside a git repository (`filesChanged: null`).
 * @example new NoFileChangesSignal(3).observe({ iteration: 1, filesChanged: 0 }).status; // 'stalled'
 */
export class NoFileChangesSignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'no_file_changes' as const;

  protected judge({ filesChanged }: IterationObservation): SignalJudgement {
    if (filesChanged === null || filesChanged === undefined) {
      return { status: 'unavailable', detail: 'not a git repository: file changes unknown' };
    }
    if (filesChanged > 0) return { status: 'progress', detail: `${filesChanged} file(s) changed` };
    return { status: 'stalled', key: 'no_changes', detail: 'no files changed' };
  }
}
