import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { gitTracking } from '../files/gitTracks.js';
import { CliError } from '../terminal/CliError.js';

/** The real path of `path`, or `path` itself when it is not there (nothing to send, nothing refused). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether `path` (real) is `folder` (real) or under it. */
function inside(path: string, folder: string): boolean {
  const rel = relative(real(folder), real(path));
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Refuses what a configuration file git tracks (one that came with the repository), or one no git
 * repository holds (a ZIP download's, which nothing tells from the user's own), may not choose
 * for `loopguard run` unless the user names it too (a flag, or `--config <file>`): where the run's
 * alerts go (`webhook`: they quote the agent's last error line), a command loopguard runs outside
 * the agent's sandbox and permission prompts (`evidence_command`), and a prompt file outside the
 * repository (`prompt_file`: its content goes to the agent, and to its provider, each iteration).
 * @param file - the configuration file found (not named by `--config`) and its values
 * @param flags - the options the user gave on the command line
 * @param cwd - where `run` was started (relative paths are read from there)
 * @throws CliError (exit 2) naming the key, the file and how to name it
 */
export function refuseRepositoryChoices(
  file: { path: string; values: Record<string, unknown> },
  flags: Record<string, unknown>,
  cwd: string,
): void {
  const { webhook, evidenceCommand, promptFile } = file.values;
  const chosen = (value: unknown, flag: string) => value !== undefined && flags[flag] === undefined;
  const promptPath = typeof promptFile === 'string' ? real(resolve(cwd, promptFile)) : null;
  const outsidePrompt =
    chosen(promptFile, 'promptFile') && promptPath !== null && !inside(promptPath, dirname(file.path));
  if (!chosen(webhook, 'webhook') && !chosen(evidenceCommand, 'evidenceCommand') && !outsidePrompt) return;
  const git = gitTracking(basename(file.path), dirname(file.path));
  if (git === 'untracked') return;
  // no repository (a ZIP download, an archive): nothing tells the file from the user's own (trust62)
  const [tracked, whose] =
    git === 'tracked'
      ? [`in ${file.path}, which git tracks (it came with the repository)`, 'a repository']
      : [
          `in ${file.path}, which no git repository holds (a download's file, which cannot be told from yours)`,
          "a project's file",
        ];
  if (chosen(webhook, 'webhook'))
    throw new CliError(
      `webhook ${tracked}: loopguard posts a run's alerts to a URL ${whose} names only when you name it (--webhook <url>, or --config <file>)`,
    );
  if (chosen(evidenceCommand, 'evidenceCommand'))
    throw new CliError(
      `evidence_command ${tracked}: loopguard runs a command ${whose} names only when you name it (--evidence-command <command>, or --config <file>)`,
    );
  throw new CliError(
    `prompt_file ${tracked}, names ${promptPath}, outside ${git === 'tracked' ? 'the repository' : 'its folder'}: loopguard sends a file outside it to the agent only when you name it (--prompt-file <path>, or --config <file>)`,
  );
}
