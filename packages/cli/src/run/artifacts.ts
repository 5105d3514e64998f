import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The files written for one iteration under `.loopguard/runs/<run id>/iterations/<n>/`. */
export interface IterationArtifacts {
  /** `changes.patch`: the iteration's changes (empty outside git or without changes). */
  patch: string;
  /** `errors.json`: the error signature and the infrastructure judgement. */
  errors: unknown;
  /** `metrics.json`: duration, exit code, output size, tokens and cost when reported. */
  metrics: unknown;
  /** `completion_signals.json`: the claim and its evidence. */
  completion: unknown;
  /** `output.log`: the agent's output (the last MiB). */
  output: string;
  /** `step_loop.json`: the step-level detector's stop verdict (loop type, repeats, evidence), when it stopped the iteration. */
  stepLoop?: unknown;
}

/** Where a run keeps its files: `<cwd>/.loopguard/runs/<run id>`. */
export function runDirectory(cwd: string, runId: string): string {
  return join(cwd, '.loopguard', 'runs', runId);
}

/** The directory of one iteration's artifacts. */
export function iterationDirectory(runDir: string, iteration: number): string {
  return join(runDir, 'iterations', String(iteration));
}

/**
 * Writes one iteration's artifacts into `dir`. Asynchronous so that the writes overlap the next
 * iteration; the run awaits every pending write before it ends.
 */
export async function writeIterationArtifacts(dir: string, files: IterationArtifacts): Promise<void> {
  await mkdir(dir, { recursive: true });
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  await Promise.all([
    writeFile(join(dir, 'changes.patch'), files.patch),
    writeFile(join(dir, 'errors.json'), json(files.errors)),
    writeFile(join(dir, 'metrics.json'), json(files.metrics)),
    writeFile(join(dir, 'completion_signals.json'), json(files.completion)),
    writeFile(join(dir, 'output.log'), files.output),
    ...(files.stepLoop === undefined ? [] : [writeFile(join(dir, 'step_loop.json'), json(files.stepLoop))]),
  ]);
}
