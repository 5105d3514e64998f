import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HookAgent } from '../hook/hookEvent.js';

/** Claude Code's MCP server entry `init` registered along with its hooks. */
export interface ServerRecord {
  /** Claude Code's configuration file it is in (`~/.claude.json`, or under `CLAUDE_CONFIG_DIR`). */
  file: string;
  /** The keys leading to the entry (`["mcpServers", "loopguard"]`, or under `projects.<dir>`). */
  path: string[];
  /** The index in `path` of the first key `init` added: what `--remove` may take out once empty. */
  owned: number;
  /**
   * Whether `init` made the file (there was none): `--remove` and `uninstall` take it out when the
   * server was all it held (sess68), rather than leave a `{}` that was not there. @default false
   */
  madeFile?: boolean;
}

/** One settings file `loopguard init` installed hooks in: the user's, or a project's. */
export interface InstallRecord {
  /** The CLI. */
  agent: HookAgent;
  /** The project directory, or `null` for the user's settings file. */
  project: string | null;
  /** The MCP server registered with the hooks (Claude Code's fast path only). */
  server?: ServerRecord;
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
    return (Array.isArray(parsed) ? parsed : []).flatMap((r): InstallRecord[] => {
      const known =
        (r?.agent === 'claude' || r?.agent === 'gemini' || r?.agent === 'codex') &&
        (r.project === null || typeof r.project === 'string');
      if (!known) return [];
      const server = r.server;
      const valid =
        typeof server?.file === 'string' &&
        Array.isArray(server.path) &&
        server.path.every((key: unknown) => typeof key === 'string') &&
        Number.isInteger(server.owned) &&
        (server.madeFile === undefined || typeof server.madeFile === 'boolean');
      return [{ agent: r.agent, project: r.project, ...(valid ? { server } : {}) }];
    });
  } catch {
    return [];
  }
}

/** The record of `agent`'s install in `project` (`null`: the user's), if there is one. */
export function recordOf(home: string, agent: HookAgent, project: string | null): InstallRecord | undefined {
  return recordedInstalls(home).find((r) => r.agent === agent && r.project === project);
}

/**
 * Adds (`installed` true; replacing the record of the same CLI and project) or takes out one
 * record, written atomically. When none is left, the file goes, and `~/.loopguard` with it when
 * that is then empty. A record that cannot be written is given up (the hooks are installed all
 * the same).
 */
export function updateInstalls(home: string, record: InstallRecord, installed: boolean): void {
  const others = recordedInstalls(home).filter(
    (r) => r.agent !== record.agent || r.project !== record.project,
  );
  const next = installed ? [...others, record] : others;
  const file = installsFile(home);
  try {
    if (next.length === 0) {
      rmSync(file, { force: true });
      if (readdirSync(dirname(file)).length === 0) rmdirSync(dirname(file));
      return;
    }
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // uninstall then finds the user's settings only
  }
}
