import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Whether git's configuration may name a pager for a command run from `dir` whose environment
 * leaves `GIT_PAGER` unset (trust71): git then pages with `pager.<command>` or `core.pager` before
 * `PAGER`. Read as git reads it: the repository's `config` (its `.git` found from `dir` up), the
 * user's global files where the command keeps `HOME` (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`,
 * else `~/.config/git/config`), and `/etc/gitconfig`. A file that names a pager or includes another
 * one, cannot be read, or is not the one git would read (`.git` a file: a worktree's; `-c`, `-C`,
 * `--git-dir`, `GIT_CONFIG_*`, `GIT_DIR` in the command, a `cd` before it) may: the safe side.
 * @param args - git's arguments.
 * @param variable - a variable of the command's environment, `undefined` when unset.
 * @param command - the call's whole text.
 */
export function gitConfigMayPage(
  dir: string,
  args: string[],
  variable: (name: string) => string | undefined,
  command: string,
): boolean {
  if (args.some((word) => OTHER_CONFIG_ARG.test(word)) || /(?:^|[\s;&|(])(?:cd|pushd)\s/.test(command))
    return true;
  if (OTHER_CONFIG_VARIABLES.some((name) => variable(name) !== undefined)) return true;
  const home = variable('HOME');
  const xdg = variable('XDG_CONFIG_HOME');
  const files = ['/etc/gitconfig'];
  if (home !== undefined)
    files.push(join(home, '.gitconfig'), join(xdg ?? join(home, '.config'), 'git', 'config'));
  const repository = gitFolder(resolve(dir));
  if (repository === null) return true;
  if (repository !== undefined) files.push(join(repository, 'config'));
  return files.some(namesPager);
}

/** git's arguments that give it another configuration or repository. */
const OTHER_CONFIG_ARG = /^-[Cc]|^--(?:git-dir|work-tree|config-env|namespace)\b/;

/** The variables that give git another configuration or repository. */
const OTHER_CONFIG_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
];

/** A configuration's text that names a pager or includes another file (`[include]`, `[includeIf …]`). */
const PAGER_OR_INCLUDE = /pager|include/i;

/** Whether the file at `path` may name a pager: it does, or it exists and cannot be read. */
function namesPager(path: string): boolean {
  try {
    return PAGER_OR_INCLUDE.test(readFileSync(path, 'utf8'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * The `.git` folder git finds from `dir` up; `undefined` where there is none (git runs outside a
 * repository), `null` where the first `.git` is not a folder (a worktree's or a submodule's file,
 * whose configuration is elsewhere).
 */
function gitFolder(dir: string): string | null | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const git = join(at, '.git');
    let found: ReturnType<typeof statSync>;
    try {
      found = statSync(git, { throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (found !== undefined) return found.isDirectory() ? git : null;
    if (dirname(at) === at) return undefined;
  }
}
