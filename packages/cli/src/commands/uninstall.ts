import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { type InstallRecord, recordedInstalls } from '../hook/installRecord.js';
import { initHooks } from './init.js';

/**
 * `loopguard uninstall`: takes loopguard's hooks out of every settings file it knows of (the
 * user's, of the three CLIs, and each project `init` recorded), and Claude Code's MCP server entries,
 * so that nothing is left pointing at a removed loopguard. `scripts/install.sh --uninstall` runs
 * it before it removes anything. Exit 2 (one line per file) when a file could not be cleaned.
 * @example loopguard uninstall
 */
export function registerUninstallCommand(program: Command, io: CliIo): void {
  program
    .command('uninstall')
    .description(
      "Take loopguard's hooks out of every settings file init wrote (run by install.sh --uninstall).",
    )
    .action(async () => {
      const home = io.env.HOME ?? '';
      const targets: InstallRecord[] = [
        { agent: 'claude', project: null },
        { agent: 'gemini', project: null },
        { agent: 'codex', project: null },
        ...recordedInstalls(home).filter((r) => r.project !== null),
      ];
      const failed: string[] = [];
      for (const target of targets) {
        if (target.project !== null && !existsSync(target.project)) continue;
        try {
          await initHooks(
            target.agent,
            { remove: true, user: target.project === null, timeout: '10' },
            { ...io, cwd: target.project ?? io.cwd },
          );
        } catch (error) {
          const command =
            target.project === null
              ? `loopguard init ${target.agent} --user --remove`
              : `cd '${target.project}' && loopguard init ${target.agent} --remove`;
          failed.push(`${(error as Error).message}: run ${command}`);
        }
      }
      if (failed.length > 0) throw new CliError(failed.join('\n'));
    });
}
