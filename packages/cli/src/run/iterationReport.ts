import { type BreakerVerdict, SIGNAL_WORDS } from '@loopguard/core/breaker';
import type { AgentResult } from './agentProcess.js';
import { formatDuration } from './duration.js';
import type { RunDisplay } from './RunDisplay.js';
import type { RunOptions } from './runOptions.js';

/**
 * Shows a finished iteration: the `iteration_finished` event and the status line
 * (`iteration 3/10 · 2m 05s of 1h 00m · breaker CLOSED · exit 0 · no files changed 2/3`),
 * the signals in words; `--json`'s readings keep their names.
 */
export function reportIteration(
  display: RunDisplay,
  options: Pick<RunOptions, 'iterationTimeout' | 'maxIterations' | 'maxRuntime'>,
  iteration: { runId: string; n: number; elapsedMs: number; artifacts: string },
  result: AgentResult,
  verdict: BreakerVerdict,
): void {
  const stalled = verdict.readings.filter((r) => r.status === 'stalled');
  const signal =
    stalled.length > 0
      ? stalled.map((r) => `${SIGNAL_WORDS[r.signal]} ${r.streak}/${r.threshold}`).join(', ')
      : verdict.progress;
  const exit = result.timedOut
    ? `killed at the ${formatDuration(options.iterationTimeout)} timeout`
    : `exit ${result.exitCode ?? result.signal}`;
  const line = `iteration ${iteration.n}/${options.maxIterations} · ${formatDuration(iteration.elapsedMs)} of ${formatDuration(options.maxRuntime)} · breaker ${display.state(verdict.state)} · ${exit} · ${signal}`;
  display.event(
    'iteration_finished',
    {
      run: iteration.runId,
      iteration: iteration.n,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: Math.round(result.durationMs),
      progress: verdict.progress,
      breaker: verdict.state,
      readings: verdict.readings,
      artifacts: iteration.artifacts,
    },
    line,
  );
  display.live(line);
}
