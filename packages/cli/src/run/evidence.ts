import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { execa } from 'execa';

/** What the evidence for a completion claim showed. */
export interface EvidenceResult {
  /** Why the evidence fails; `[]` when it holds. */
  problems: string[];
  /** The evidence command's exit code; `null` when there is none or a signal ended it. */
  exitCode: number | null;
}

/**
 * Checks the evidence for a completion claim: `--evidence-command` must exit 0 (run in `cwd` with
 * the iteration timeout) and every `--require-file` must exist.
 * @example await checkEvidence({ evidenceCommand: 'npm test', requireFile: [], iterationTimeout: 60_000 }, cwd);
 */
export async function checkEvidence(
  options: { evidenceCommand?: string; requireFile: readonly string[]; iterationTimeout: number },
  cwd: string,
): Promise<EvidenceResult> {
  const problems: string[] = [];
  let exitCode: number | null = null;
  if (options.evidenceCommand !== undefined) {
    const evidence = await execa(options.evidenceCommand, {
      shell: true,
      cwd,
      reject: false,
      timeout: options.iterationTimeout,
      all: true,
    });
    exitCode = evidence.exitCode ?? null;
    if (evidence.exitCode !== 0)
      problems.push(
        `evidence command "${options.evidenceCommand}" exited ${evidence.exitCode ?? evidence.signal}`,
      );
  }
  for (const file of options.requireFile) {
    if (!existsSync(resolve(cwd, file))) problems.push(`required file ${file} is missing`);
  }
  return { problems, exitCode };
}
