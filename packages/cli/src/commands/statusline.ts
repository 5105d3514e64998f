import { isatty } from 'node:tty';
import type { Command } from 'commander';
import { STATUSLINE_TERMINAL_WORDS, statuslineMain } from '../statusline/statuslineMain.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/**
 * `loopguard statusline`: Claude Code's `statusLine` command (installed by `loopguard init claude`):
 * the session's JSON on stdin, one line of what loopguard did to the session on stdout, exit 0
 * (docs/hooks.md, "Status line"); typed at a prompt (stdin a terminal), one line on stderr, exit 1. `bin.js` runs it without loading the command tree; this
 * registration gives it its help and the same behaviour through `runCli`.
 * @example echo '{"session_id":"3f1c…","cwd":"/repo"}' | loopguard statusline
 */
export function registerStatuslineCommand(program: Command, io: CliIo): void {
  program
    .command('statusline')
    .description("Print one line of what loopguard did to a Claude Code session (Claude Code's statusLine).")
    .action(async () => {
      const stdinIsTerminal = isatty(0);
      // the one line of a terminal as stdin is runCli's to print, as CliError's
      await statuslineMain(process.stdin, io.stdout, io.env, { stdinIsTerminal, stderr: () => {} });
      if (stdinIsTerminal) throw new CliError(STATUSLINE_TERMINAL_WORDS, EXIT_CODES.internalError);
    });
}
