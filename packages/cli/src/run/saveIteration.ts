import type { BreakerSnapshot, BreakerVerdict } from '@loopguard/core/breaker';
import type { SqliteRunStore } from '@loopguard/sqlite';
import type { AgentIteration } from './agentIteration.js';
import { iterationDirectory, writeIterationArtifacts } from './artifacts.js';
import type { IterationJudgement } from './judgeIteration.js';

/** One judged iteration to save. */
export interface IterationToSave {
  /** Its number. */
  n: number;
  /** When it started and ended, epoch ms. */
  startedAt: number;
  /** When the iteration ended, epoch ms. */
  endedAt: number;
  /** The model it ran with, if any. */
  model: string | null;
  /** What the agent did. */
  ran: AgentIteration;
  /** How it was judged. */
  judged: IterationJudgement;
  /** The breaker's verdict. */
  verdict: BreakerVerdict;
}

/**
 * Saves an iteration: its artifacts (written in the background: the returned promise), its record
 * in `run_iterations` and the run's progress (iteration, breaker snapshot, model index).
 * @returns the artifact directory and the pending artifact write, which never rejects: it resolves
 * with the write's error (`null` when written), reported when the run ends.
 */
export function saveIteration(
  runs: SqliteRunStore,
  run: { id: string; dir: string; breaker: BreakerSnapshot; modelIndex: number },
  it: IterationToSave,
): { artifactsDir: string; written: Promise<Error | null> } {
  const { ran, judged, verdict } = it;
  const artifactsDir = iterationDirectory(run.dir, it.n);
  const written = writeIterationArtifacts(artifactsDir, {
    patch: ran.changes?.patch ?? '',
    errors: judged.errors,
    metrics: {
      ...judged.metrics,
      filesChanged: ran.changes?.files.length ?? null,
      model: it.model,
      malformedStepLines: ran.malformed.lines,
    },
    completion: judged.completion,
    output: ran.result.output,
    ...(ran.stopVerdict === null ? {} : { stepLoop: ran.stopVerdict }),
  }).then(
    () => null,
    // handled at once: a full disk fails this write and the record below together, and the record's
    // error must end the run, not an unhandled rejection of a write nobody awaits any more
    (error: Error) => error,
  );
  runs.recordIteration({
    runId: run.id,
    iteration: it.n,
    startedAt: it.startedAt,
    endedAt: it.endedAt,
    exitCode: ran.result.exitCode,
    progress: ran.stopVerdict === null ? verdict.progress : 'stopped',
    signals: verdict.readings,
  });
  runs.updateRun(run.id, { iteration: it.n, breaker: run.breaker, modelIndex: run.modelIndex });
  return { artifactsDir, written };
}
