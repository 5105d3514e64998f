import { isAbsolute, join } from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import type { PlannedEntry } from '../hook/hookSettings.js';
import { commandEntries } from '../hook/hookSettings.js';
import { memberValue, parseJsonText } from '../hook/jsonText.js';
import { HOOK_TOOL_NAME, hookToolInput, MCP_SERVER_NAME } from './hookTool.js';

/** How Claude Code starts loopguard's MCP server: a stdio server entry of its `mcpServers`. */
export interface McpServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Claude Code's own configuration file, where it reads MCP servers (`claude mcp add` writes
 * there): `$CLAUDE_CONFIG_DIR/.claude.json` when that is set, else `~/.claude.json` (checked with
 * Claude Code 2.1.330).
 */
export function claudeConfigFile(env: NodeJS.ProcessEnv, home: string): string {
  const dir = env.CLAUDE_CONFIG_DIR?.trim();
  return dir && isAbsolute(dir) ? join(dir, '.claude.json') : join(home, '.claude.json');
}

/**
 * Where the server is registered: `mcpServers` at the top (the user's scope: every project), or
 * `projects.<dir>.mcpServers` (Claude Code's local scope: that project only, no approval asked).
 */
export function serverPath(projectDir: string | undefined): string[] {
  return projectDir === undefined
    ? ['mcpServers', MCP_SERVER_NAME]
    : ['projects', projectDir, 'mcpServers', MCP_SERVER_NAME];
}

/**
 * The server entry that runs `loopguard mcp`.
 * @param argv - this node and loopguard's bin (`[node, bin]`), or, from `--command`, a shell
 *   command (run as `sh -c 'exec <command> mcp'`).
 */
export function mcpServerEntry(argv: readonly [string, string] | string): McpServerEntry {
  return typeof argv === 'string'
    ? { type: 'stdio', command: 'sh', args: ['-c', `exec ${argv} mcp`], env: {} }
    : { type: 'stdio', command: argv[0], args: [argv[1], 'mcp'], env: {} };
}

/**
 * `text` (Claude Code's configuration) with loopguard's server at `path` (`undefined`: taken out).
 * Only that value's bytes change. A blank text is `{}`.
 */
export function withServer(text: string, path: string[], server: McpServerEntry | undefined): string {
  const base = text.trim() === '' ? '{}\n' : text;
  if (server === undefined && !hasServer(base, path)) return text;
  const edits = modify(base, path, server, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  return applyEdits(base, edits);
}

/** Whether `text` holds a server at `path`. */
export function hasServer(text: string, path: string[]): boolean {
  if (text.trim() === '') return false;
  let node = parseJsonText(text).root as ReturnType<typeof memberValue>;
  for (const key of path) node = memberValue(node, key);
  return node !== undefined;
}

/**
 * The `mcp_tool` hook entries of the fast path: on each event the command hook is registered for
 * (same matchers), a call of loopguard's `hook` tool with the event's fields.
 * @param timeoutSeconds - how long Claude Code waits for one answer.
 */
export function mcpToolEntries(timeoutSeconds: number): PlannedEntry[] {
  const entry = {
    type: 'mcp_tool',
    server: MCP_SERVER_NAME,
    tool: HOOK_TOOL_NAME,
    input: hookToolInput(),
    timeout: timeoutSeconds,
  };
  return commandEntries('claude', '', timeoutSeconds).map(({ event, matcher }) => ({
    event,
    matcher,
    entry,
  }));
}
