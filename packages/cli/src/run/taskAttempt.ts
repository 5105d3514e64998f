import type { LoopDetector } from '@loopguard/core';
import type { BreakerVerdict } from '@loopguard/core/breaker';
import { attemptOf } from './judgeIteration.js';

/**
 * Records an iteration as an attempt at its task in the seed-002 detector (task id
 * `<run id>:<task>`) and returns the breaker reason when the detector sees a loop (a finished task
 * revisited, a blocked spin, the same patch again); else `null`.
 */
export function recordTaskAttempt(
  detector: LoopDetector,
  at: { runId: string; iteration: number; task: string },
  verdict: BreakerVerdict,
  taskDone: boolean,
  patch: string,
): string | null {
  const taskKey = `${at.runId}:${at.task}`;
  const attempt = attemptOf(verdict, taskDone, patch);
  detector.recordAttempt(
    taskKey,
    attempt.status,
    attempt.blockers,
    attempt.work,
    `${at.runId}#${at.iteration}`,
  );
  const loop = detector.detectLoop(taskKey);
  if (!loop.isLooping) return null;
  return `loop_detector: ${loop.loopType} on task ${at.task} (${loop.attemptCount} attempts, recommendation ${loop.recommendation})`;
}
