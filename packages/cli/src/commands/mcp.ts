import type { Command } from 'commander';
import { McpHookServer } from '../mcp/McpHookServer.js';
import type { CliIo } from '../terminal/cliIo.js';

/**
 * `loopguard mcp`: loopguard's MCP server on stdio, which Claude Code starts for a session whose
 * settings hold loopguard's `mcp_tool` hooks (`loopguard init claude`, see docs/hooks.md). It runs
 * until Claude Code closes its stdin.
 * @example loopguard mcp   # started by Claude Code, speaking JSON-RPC on stdin and stdout
 */
export function registerMcpCommand(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description("loopguard's MCP server for Claude Code's mcp_tool hooks (started by Claude Code).")
    .action(async () => {
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
