import type { Command } from 'commander';
import { statuslineMain } from '../statusline/statuslineMain.js';
import type { CliIo } from '../terminal/cliIo.js';

/**
 * `loopguard statusline`: Claude Code's `statusLine` command (installed by `loopguard init claude`):
 * the session's JSON on stdin, one line of what loopguard did to the session on stdout, always exit 0
 * (docs/hooks.md, "Status line"). `bin.js` runs it without loading the command tree; this
 * registration gives it its help and the same behaviour through `runCli`.
 * @example echo '{"session_id":"3f1c…","cwd":"/repo"}' | loopguard statusline
 */
export function registerStatuslineCommand(program: Command, io: CliIo): void {
  program
    .command('statusline')
    .description("Print one line of what loopguard did to a Claude Code session (Claude Code's statusLine).")
    .action(async () => {
      await statuslineMain(process.stdin, io.stdout, io.env);
    });
}
