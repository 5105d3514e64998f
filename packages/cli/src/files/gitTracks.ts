import { spawnSync } from 'node:child_process';

/**
 * What git says of `path` (a file, or any file under a folder) in the repository around `cwd`:
 * `'tracked'` when `git ls-files` lists something, `'untracked'` when it lists nothing, and
 * `'no repository'` when it fails (no repository holds `cwd`, no git, a repository git refuses, or
 * over 2 s). A repository's own configuration may name a program for git to run
 * (`core.fsmonitor`): it is switched off, so that asking never runs the repository's code.
 * @example gitTracking('.claude/settings.json', '/repo'); // 'tracked' when committed
 */
export function gitTracking(path: string, cwd: string): 'tracked' | 'untracked' | 'no repository' {
  const listed = spawnSync('git', ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--', path], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 2000,
  });
  if (listed.status !== 0) return 'no repository';
  return listed.stdout === '' ? 'untracked' : 'tracked';
}

/**
 * Whether git tracks `path` in the repository around `cwd` ({@link gitTracking}); no git, no
 * repository, or a git that fails: `false`.
 * @example gitTracks('.claude/settings.json', '/repo'); // true when committed
 */
export function gitTracks(path: string, cwd: string): boolean {
  return gitTracking(path, cwd) === 'tracked';
}
