import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { claudeConfigFile, requiredLoopguardHome } from '../files/agentHome.js';
import { type InstallRecord, recordedInstalls, updateInstalls } from '../install/installRecord.js';
import { serverPath, withServer } from '../install/mcpRegistration.js';
import { readSettingsFile, removeSettingsFile, writeSettingsFile } from '../install/settingsFile.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { editSettings } from './editSettings.js';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, initHooks } from './init.js';
import { isEmptyObject } from './serverChange.js';

/**
 * `loopguard uninstall`: takes loopguard's hooks out of every settings file it knows of (the
 * user's, of the three CLIs, and each project `init` recorded), and Claude Code's MCP server entries,
 * so that nothing is left pointing at a removed loopguard (a project whose folder is gone loses its
 * server entry too). `scripts/install.sh --uninstall` runs
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
      const home = requiredLoopguardHome(io.env);
      const targets: InstallRecord[] = [
        { agent: 'claude', project: null },
        { agent: 'gemini', project: null },
        { agent: 'codex', project: null },
        ...recordedInstalls(home).filter((r) => r.project !== null),
      ];
      const failed: string[] = [];
      const looked: Array<{ file: string; exists: boolean }> = [];
      // each file cleaned is said; when none was, that is said, not silence
      let said = false;
      const told: CliIo = {
        ...io,
        stdout: (text) => {
          said = true;
          io.stdout(text);
        },
      };
      for (const target of targets) {
        try {
          if (target.project !== null && !existsSync(target.project)) {
            removeOrphanServer(target, home, told);
            continue;
          }
          await initHooks(
            target.agent,
            {
              remove: true,
              untouched: (file, exists) => looked.push({ file, exists }),
              user: target.project === null,
              timeout: String(DEFAULT_HOOK_TIMEOUT_SECONDS),
              shownFrom: io.cwd,
            },
            { ...told, cwd: target.project ?? io.cwd },
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
      if (!said) io.stdout(`loopguard: ${nothingToTakeOut(looked)}\n`);
      // after the files it cleaned, the ones it looked at and left, in one line (sess68)
      else if (looked.length > 0) io.stdout(`loopguard: nothing else to take out: ${filesLeft(looked)}\n`);
    });
}

/**
 * A project whose folder is gone has no settings file left, but Claude Code's configuration
 * still holds its MCP server entry: taken out, and so is the record.
 * @throws CliError naming the file when it cannot be edited
 */
function removeOrphanServer(target: InstallRecord, home: string, io: CliIo): void {
  const project = target.project as string;
  if (target.agent === 'claude') {
    const file = target.server?.file ?? claudeConfigFile(io.env);
    const path = target.server?.path ?? serverPath(project);
    const found = readSettingsFile(file, (shown) => shown);
    const { text } = editSettings(
      () => withServer(found.text ?? '', path, undefined, target.server?.owned),
      file,
    );
    if (text !== (found.text ?? '')) {
      // the file init made for the server alone goes with it (sess68)
      const goes = target.server?.madeFile === true && isEmptyObject(text);
      if (goes) removeSettingsFile(found, (shown) => shown);
      else writeSettingsFile(found, text, (shown) => shown);
      io.stdout(
        `${file}: loopguard's MCP server taken out of ${project} (the folder is gone)${goes ? '; removed (init had made it)' : ''}\n`,
      );
    }
  }
  updateInstalls(home, target, false);
}

/**
 * What `uninstall` looked at when it found nothing to take out, in one line (polish66): the files
 * with no loopguard hook, those not there, and the projects init recorded.
 * @example nothingToTakeOut([{ file: '/h/.claude/settings.json', exists: true }])
 * // 'nothing to take out: no loopguard hook in /h/.claude/settings.json; no project init recorded holds a loopguard hook'
 */
function nothingToTakeOut(looked: ReadonlyArray<{ file: string; exists: boolean }>): string {
  const files = looked.length > 0 ? `${filesLeft(looked)}; ` : '';
  return `nothing to take out: ${files}no project init recorded holds a loopguard hook`;
}

/**
 * The files `uninstall` looked at and left: those with no loopguard hook, those not there.
 * @example filesLeft([{ file: '/h/.gemini/settings.json', exists: false }]) // '/h/.gemini/settings.json is not there'
 */
function filesLeft(looked: ReadonlyArray<{ file: string; exists: boolean }>): string {
  const list = (files: string[], and: string) =>
    files.length === 1 ? files[0] : `${files.slice(0, -1).join(', ')} ${and} ${files.at(-1)}`;
  const there = looked.filter((l) => l.exists).map((l) => l.file);
  const gone = looked.filter((l) => !l.exists).map((l) => l.file);
  return [
    ...(there.length > 0 ? [`no loopguard hook in ${list(there, 'or')}`] : []),
    ...(gone.length > 0 ? [`${list(gone, 'and')} ${gone.length === 1 ? 'is' : 'are'} not there`] : []),
  ].join('; ');
}
