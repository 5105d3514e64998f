import { mkdirSync, writeFileSync } from 'node:fs';
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
}

/** Where a run keeps its files: `<cwd>/.loopguard/runs/<run id>`. */
export function runDirectory(cwd: string, runId: string): string {
  return join(cwd, '.loopguard', 'runs', runId);
}

/** Writes one iteration's artifacts; returns their directory. */
export function writeIterationArtifacts(
  runDir: string,
  iteration: number,
  files: IterationArtifacts,
): string {
  const dir = join(runDir, 'iterations', String(iteration));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'changes.patch'), files.patch);
  writeFileSync(join(dir, 'errors.json'), `${JSON.stringify(files.errors, null, 2)}\n`);
  writeFileSync(join(dir, 'metrics.json'), `${JSON.stringify(files.metrics, null, 2)}\n`);
  writeFileSync(join(dir, 'completion_signals.json'), `${JSON.stringify(files.completion, null, 2)}\n`);
  writeFileSync(join(dir, 'output.log'), files.output);
  return dir;
}
