import { spawnSync } from 'node:child_process';

/**
 * Whether git tracks `path` (a file, or any file under a folder) in the repository around `cwd`
 * (`git ls-files` lists something). No git, no repository, or a git that fails or takes over 2 s:
 * `false`. A repository's own configuration may name a program for git to run
 * (`core.fsmonitor`): it is switched off, so that asking never runs the repository's code.
 * @example gitTracks('.claude/settings.json', '/repo'); // true when committed
 */
export function gitTracks(path: string, cwd: string): boolean {
  const listed = spawnSync('git', ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--', path], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 2000,
  });
  return listed.status === 0 && listed.stdout !== '';
}
