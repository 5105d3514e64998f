import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookAgent } from './hookEvent.js';

/** One settings file `loopguard init` installed hooks in: the user's, or a project's. */
export interface InstallRecord {
  /** The CLI. */
  agent: HookAgent;
  /** The project directory, or `null` for the user's settings file. */
  project: string | null;
}

/**
 * `~/.loopguard/installs.json`: where `init` installed hooks, so that `loopguard uninstall` (run by
 * `scripts/install.sh --uninstall`) removes them from every settings file, not only the user's.
 */
export function installsFile(home: string): string {
  return join(home, '.loopguard', 'installs.json');
}

/** The recorded installs; a missing or unreadable file records none. */
export function recordedInstalls(home: string): InstallRecord[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(installsFile(home), 'utf8'));
    return (Array.isArray(parsed) ? parsed : []).filter(
      (r): r is InstallRecord =>
        (r?.agent === 'claude' || r?.agent === 'gemini' || r?.agent === 'codex') &&
        (r.project === null || typeof r.project === 'string'),
    );
  } catch {
    return [];
  }
}

/**
 * Adds (`installed` true) or takes out one record, written atomically; a record that cannot be
 * written is given up (the hooks are installed all the same).
 */
export function updateInstalls(home: string, record: InstallRecord, installed: boolean): void {
  const others = recordedInstalls(home).filter(
    (r) => r.agent !== record.agent || r.project !== record.project,
  );
  const next = installed ? [...others, record] : others;
  try {
    mkdirSync(join(home, '.loopguard'), { recursive: true, mode: 0o700 });
    const temporary = `${installsFile(home)}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, installsFile(home));
  } catch {
    // uninstall then finds the user's settings only
  }
}
