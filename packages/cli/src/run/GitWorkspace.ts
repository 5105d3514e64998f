import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

// Git plumbing runs on every iteration: node's execFile costs about half of execa per call here
// (measured by scripts/bench-run.mjs), so the hot path uses it; the agent itself runs through execa.
const run = promisify(execFile);

async function git(
  cwd: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
    return { code: 0, stdout };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string };
    if (typeof failure.code === 'number') return { code: failure.code, stdout: failure.stdout ?? '' };
    throw error;
  }
}

/**
 * A failed snapshot as one line naming git's complaint; `code` is `ENOSPC` when the disk is full,
 * so that the run ends `failed` like on any other storage fault.
 */
function snapshotError(error: unknown): Error {
  const stderr = String((error as { stderr?: unknown }).stderr ?? (error as Error).message ?? error);
  const line =
    stderr.split('\n').find((l) => /^(fatal|error):/.test(l.trim())) ?? stderr.split('\n')[0] ?? '';
  const full = /out of disk ?space|no space left/i.test(stderr);
  return Object.assign(
    new Error(`git could not snapshot the working tree: ${line.trim()}`, { cause: error }),
    {
      code: full ? 'ENOSPC' : 'EGIT',
    },
  );
}

/** What changed in the working tree between two snapshots. */
export interface WorkspaceChanges {
  /** Files added, modified or deleted (committed or not). */
  files: string[];
  /** The changes as a git patch (binary-safe). */
  patch: string;
}

/**
 * An entry of `GIT_ALTERNATE_OBJECT_DIRECTORIES`: C-quoted when it holds the list's separator or
 * starts with a quote (git unquotes such an entry, since 2.11).
 */
function alternateEntry(path: string): string {
  return /[:"\\]/.test(path) ? `"${path.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : path;
}

/**
 * The "no file changes" facts of a git working tree. A snapshot is the tree of the whole working
 * tree, committed or not, untracked files included (ignored files and `.loopguard/` excluded),
 * written with a private index so the user's index is never touched, and into a private object
 * folder beside it (the repository's objects read as an alternate): `git add` writes a blob of
 * every untracked file, and in the repository's own `.git/objects` (mode 0444, folders 0755) a key
 * the user kept in a 0600 file became readable by every local user. Comparing the snapshots taken
 * before and after an iteration tells whether it changed anything, whether or not the agent
 * committed its work.
 * @example
 * const ws = await GitWorkspace.open(cwd, '/repo/.loopguard/runs/r1');
 * const before = await ws?.snapshot(); // … run the agent …
 * const changes = await ws?.changes(before, await ws.snapshot());
 */
export class GitWorkspace {
  private constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * The workspace at `cwd`, or `null` when `cwd` is not inside a git working tree.
   * @param folder - the run's own folder (under the private `.loopguard`): the snapshots' index
   *   (`index`) and objects (`objects/`) are kept there
   */
  static async open(cwd: string, folder: string): Promise<GitWorkspace | null> {
    const probe = await git(cwd, ['rev-parse', '--is-inside-work-tree', '--git-path', 'objects']).catch(
      () => null,
    );
    const [inside, objects] = probe?.code === 0 ? probe.stdout.split('\n') : [];
    if (inside !== 'true' || objects === undefined || objects === '') return null;
    const own = join(folder, 'objects');
    mkdirSync(own, { recursive: true });
    const inherited = process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES;
    const repository = alternateEntry(resolve(cwd, objects));
    return new GitWorkspace(cwd, {
      ...process.env,
      GIT_INDEX_FILE: join(folder, 'index'),
      GIT_OBJECT_DIRECTORY: own,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: inherited ? `${repository}${delimiter}${inherited}` : repository,
    });
  }

  /**
   * This workspace's environment with the repository's programs switched off (shell66): the
   * repository's own config may name programs git runs while it snapshots (`core.fsmonitor` on
   * `git add`, a `filter.<driver>.clean` or `process` on each file its attributes name, hooks): each
   * is set off through `GIT_CONFIG_COUNT` (git 2.31), for every git command of the snapshot's shell.
   * The filters are read anew each time: the agent may add one between snapshots.
   */
  private async guardedEnv(): Promise<NodeJS.ProcessEnv> {
    const listed = await git(
      this.cwd,
      ['-c', 'core.fsmonitor=false', 'config', '-z', '--name-only', '--get-regexp', '^filter\\.'],
      this.env,
    );
    // a driver `required` fails the add when it has no command: each is left unrequired
    const drivers = new Set(listed.stdout.split('\0').map((key) => /^filter\.(.+)\.[^.]+$/s.exec(key)?.[1]));
    drivers.delete(undefined);
    const settings = [
      ['core.fsmonitor', 'false'],
      ['core.hooksPath', '/dev/null'],
    ];
    for (const driver of drivers)
      settings.push(
        [`filter.${driver}.clean`, ''],
        [`filter.${driver}.process`, ''],
        [`filter.${driver}.required`, 'false'],
      );
    const env: NodeJS.ProcessEnv = { ...this.env, GIT_CONFIG_COUNT: String(settings.length) };
    settings.forEach(([key, value], index) => {
      env[`GIT_CONFIG_KEY_${index}`] = key;
      env[`GIT_CONFIG_VALUE_${index}`] = value;
    });
    return env;
  }

  /** The tree id of the working tree as it is now. */
  async snapshot(): Promise<string> {
    // One shell runs the git commands: a spawn from node costs more than two from the shell. git
    // takes the exclusion of a path the repository ignores as naming it: it stages the rest and
    // exits 1 ("The following paths are ignored…"); there, and only there, the add is made again
    // without it (an ignored `.loopguard` is not added anyway).
    const script =
      "{ git add -A -- . ':(exclude).loopguard' || { git check-ignore -q .loopguard && git add -A -- .; }; } && git write-tree";
    try {
      const env = await this.guardedEnv();
      const { stdout } = await run('sh', ['-c', script], { cwd: this.cwd, env, encoding: 'utf8' });
      return stdout.trim();
    } catch (error) {
      throw snapshotError(error);
    }
  }

  /** The changes from tree `from` to tree `to` (nothing to compute when they are equal). */
  async changes(from: string, to: string): Promise<WorkspaceChanges> {
    if (from === to) return { files: [], patch: '' };
    const patch = await git(
      this.cwd,
      ['diff', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', from, to],
      this.env,
    );
    const files = [...patch.stdout.matchAll(/^diff --git a\/(.*?) b\//gm)].map((m) => m[1] ?? '');
    return { files, patch: patch.stdout };
  }
}
