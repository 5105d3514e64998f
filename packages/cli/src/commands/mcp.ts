import { isatty } from 'node:tty';
import type { Command } from 'commander';
import { McpHookServer } from '../mcp/McpHookServer.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/**
 * What `loopguard mcp` typed at a prompt says after `loopguard: ` (stdin a terminal: Claude Code
 * pipes JSON-RPC), exit 1, instead of waiting silently for a client that never comes (polish65).
 */
export const MCP_TERMINAL_WORDS =
  "mcp is loopguard's MCP server: it speaks JSON-RPC on stdin and stdout with Claude Code, which starts it for the hooks loopguard init claude installs (docs/hooks.md): stdin is a terminal, so it does not start";

/**
 * `loopguard mcp`: loopguard's MCP server on stdio, which Claude Code starts for a session whose
 * settings hold loopguard's `mcp_tool` hooks (`loopguard init claude`, see docs/hooks.md). It runs
 * until Claude Code closes its stdin. Typed at a prompt (stdin a terminal), one line, exit 1.
 * @example loopguard mcp   # started by Claude Code, speaking JSON-RPC on stdin and stdout
 */
export function registerMcpCommand(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description("loopguard's MCP server for Claude Code's mcp_tool hooks (started by Claude Code).")
    .action(async () => {
      if (isatty(0)) throw new CliError(MCP_TERMINAL_WORDS, EXIT_CODES.internalError);
      const server = new McpHookServer({
        write: (line) => process.stdout.write(line),
        projectDir: io.env.CLAUDE_PROJECT_DIR ?? '',
        env: io.env,
      });
      process.stdin.on('data', (chunk: Buffer) => server.receive(chunk));
      await new Promise((resolve) => process.stdin.once('end', resolve));
      await server.idle();
      server.close();
    });
}
