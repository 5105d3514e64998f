import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled while the same task stays in progress; progress when the iteration finished a task (a
 * plan item checked); unavailable when no task is known.
 * @example new TaskNotProgressingSignal(5).observe({ iteration: 1, task: { id: 'T1', done: false } }).streak; // 1
 */
export class TaskNotProgressingSignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'task_not_progressing' as const;

  protected judge({ task }: IterationObservation): SignalJudgement {
    if (task === null || task === undefined) return { status: 'unavailable', detail: 'no task known' };
    if (task.done) return { status: 'progress', detail: `task ${task.id} done` };
    return { status: 'stalled', key: task.id, detail: `task ${task.id} still in progress` };
  }
}
