import type { ContextEntryInput } from '@loopguard/core';
import { stepLoopEntry } from '@loopguard/core/internal';
import type { StepVerdict } from '@loopguard/core/steps';

/** The stream watcher's loops in one iteration, as {@link recordLoopEntries} records them. */
export interface IterationLoops {
  /** Its nudges and stop, oldest first. */
  verdicts: readonly StepVerdict[];
  /** The thresholds they were judged with. */
  thresholds: Readonly<Record<string, number>>;
  /** The agent's session the stream named (`claude:<session_id>`), `null` if none. */
  agentSession: string | null;
}

/**
 * Records the `--agent-stream` watcher's nudges and stop of an iteration as the run's `loop_nudge`
 * and `loop_stop` entries, by the rule the hooks record theirs (core's `stepLoopEntry`), with the
 * run's id (the `agent_sessions` view finds a run's entries by it), the iteration and the agent's
 * session (`agentSession`: `scan` finds the run's record of a stream it reads by it). Called after
 * the iteration, as the spend entries are: a storage fault ends the run `failed`.
 */
export function recordLoopEntries(
  loops: IterationLoops,
  at: { runId: string; iteration: number; task: string | null; now: number },
  record: ((entry: ContextEntryInput) => void) | undefined,
): void {
  if (record === undefined) return;
  for (const verdict of loops.verdicts) {
    const entry = stepLoopEntry(verdict, {
      taskId: at.task ?? at.runId,
      runId: at.runId,
      detectedAt: at.now,
      thresholds: loops.thresholds,
    });
    const agentSession = loops.agentSession === null ? {} : { agentSession: loops.agentSession };
    record({ ...entry, metadata: { ...entry.metadata, iteration: at.iteration, ...agentSession } });
  }
}
