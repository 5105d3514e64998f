import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';

/** What changed in the working tree between two snapshots. */
export interface WorkspaceChanges {
  /** Files added, modified or deleted (committed or not). */
  files: string[];
  /** The changes as a git patch (binary-safe). */
  patch: string;
}

/**
 * The "no file changes" facts of a git working tree. A snapshot is the tree of the whole working
 * tree, committed or not, untracked files included (ignored files and `.loopguard/` excluded),
 * written with a private index so the user's index is never touched. Comparing the snapshots
 * taken before and after an iteration tells whether it changed anything, whether or not the
 * agent committed its work.
 * @example
 * const ws = await GitWorkspace.open(cwd, '.loopguard/runs/r1/index');
 * const before = await ws?.snapshot(); // … run the agent …
 * const changes = await ws?.changes(before, await ws.snapshot());
 */
export class GitWorkspace {
  private constructor(
    private readonly cwd: string,
    private readonly env: Record<string, string>,
  ) {}

  /** The workspace at `cwd`, or `null` when `cwd` is not inside a git working tree. */
  static async open(cwd: string, indexFile: string): Promise<GitWorkspace | null> {
    const probe = await execa('git', ['rev-parse', '--is-inside-work-tree'], { cwd, reject: false });
    if (probe.exitCode !== 0 || probe.stdout.trim() !== 'true') return null;
    mkdirSync(dirname(indexFile), { recursive: true });
    return new GitWorkspace(cwd, { GIT_INDEX_FILE: indexFile });
  }

  /** The commit checked out (`HEAD`), or `null` before the first commit. */
  async head(): Promise<string | null> {
    const result = await execa('git', ['rev-parse', '--verify', '-q', 'HEAD'], {
      cwd: this.cwd,
      reject: false,
    });
    return result.exitCode === 0 ? result.stdout.trim() : null;
  }

  /** The tree id of the working tree as it is now. */
  async snapshot(): Promise<string> {
    const git = { cwd: this.cwd, env: this.env };
    await execa('git', ['add', '-A', '--', '.', ':(exclude).loopguard'], git);
    return (await execa('git', ['write-tree'], git)).stdout.trim();
  }

  /** The changes from tree `from` to tree `to` (nothing to compute when they are equal). */
  async changes(from: string, to: string): Promise<WorkspaceChanges> {
    if (from === to) return { files: [], patch: '' };
    const patch = await execa('git', ['diff', '--binary', '--no-color', '--no-ext-diff', from, to], {
      cwd: this.cwd,
      stripFinalNewline: false,
    });
    const files = [...patch.stdout.matchAll(/^diff --git a\/(.*?) b\//gm)].map((m) => m[1] ?? '');
    return { files, patch: patch.stdout };
  }
}
