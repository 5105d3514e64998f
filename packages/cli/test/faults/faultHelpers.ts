import { existsSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import { bin } from '../runHelpers.js';

/**
 * Runs a bash script as root of a private user and mount namespace (`unshare -rm`), where it may
 * mount a small tmpfs (a full disk) or remount a directory read-only. `$LOOPGUARD` runs the built CLI.
 */
export async function inNamespace(script: string, cwd: string) {
  const result = await execa(
    'unshare',
    ['-rm', 'bash', '-c', `set -u\nLOOPGUARD="${process.execPath} ${bin}"\n${script}`],
    {
      cwd,
      reject: false,
      env: { NO_COLOR: '1' },
    },
  );
  return { code: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Whether the process is alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** The pids an agent script recorded in `file`, one per line. */
export function recordedPids(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/\s+/)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
}

/** Polls until `check` is true or `ms` passed; returns the last value of `check`. */
export async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
