import type { ContextEntryInput } from '../model/contextEntry.js';
import type { StepVerdict } from './stepVerdict.js';

/** What a recorded step loop names besides the verdict. */
export interface StepLoopEntryContext {
  /** The task the run works on. */
  taskId: string;
  /** The run's id, when known. */
  runId: string | undefined;
  /** When the loop was detected (epoch ms). */
  detectedAt: number;
  /** The detector's thresholds. */
  thresholds: Readonly<Record<string, number>>;
}

/**
 * The context entry of a nudge (`loop_nudge`, a learning) or a stop (`loop_stop`, a decision).
 * Its metadata says whether it `followsNudge` (a stop after its loop's nudge is the same loop) and
 * at which `toolCall` (1-based) the verdict fell, as a person counts the session's calls.
 * @example stepLoopEntry(verdict, { taskId: 'T1', runId: undefined, detectedAt: 0, thresholds: {} }).topic; // 'loop_nudge'
 */
export function stepLoopEntry(verdict: StepVerdict, context: StepLoopEntryContext): ContextEntryInput {
  const stop = verdict.action === 'stop';
  return {
    entryType: stop ? 'decision' : 'learning',
    topic: stop ? 'loop_stop' : 'loop_nudge',
    content: verdict.message ?? '',
    relatedTasks: [context.taskId],
    confidence: 1,
    metadata: {
      loopType: verdict.loopType,
      repeats: verdict.repeats,
      since: verdict.since,
      step: verdict.step,
      toolCall: verdict.toolCall,
      evidence: verdict.evidence,
      followsNudge: verdict.followsNudge,
      detectedAt: context.detectedAt,
      thresholds: { ...context.thresholds },
      ...(context.runId === undefined ? {} : { runId: context.runId }),
    },
  };
}
