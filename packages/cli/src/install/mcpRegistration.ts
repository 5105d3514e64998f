import type { Node } from 'jsonc-parser';
import { HOOK_TOOL_NAME, hookToolInput, MCP_SERVER_NAME } from '../mcp/hookTool.js';
import type { PlannedEntry } from './hookSettings.js';
import { commandEntries } from './hookSettings.js';
import { countOf, pathTree } from './jsonPathTree.js';
import {
  appendProperty,
  type JsonText,
  membersOf,
  memberValue,
  parseJsonText,
  removeMember,
} from './jsonText.js';
import { InvalidSettingsError } from './settingsText.js';

/** How Claude Code starts loopguard's MCP server: a stdio server entry of its `mcpServers`. */
export interface McpServerEntry {
  /** The transport: the server speaks over its stdin and stdout. */
  type: 'stdio';
  /** The program started (node). */
  command: string;
  /** Its arguments (loopguard's bin and `mcp`). */
  args: string[];
  /**
   * Its environment: loopguard's own variables, set at `init`; `NODE_OPTIONS` empty, over what
   * Claude Code hands the servers it starts (a settings file's `env`: `--import=data:…,process.exit(0)`
   * there ended the server at its start, and every fast-path hook failed open; redteam68).
   */
  env: Record<string, string>;
}

/** The server's environment: node started without the user's or a settings file's `NODE_OPTIONS`. */
const SERVER_ENV = { NODE_OPTIONS: '' };

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
    ? { type: 'stdio', command: 'sh', args: ['-c', `exec ${argv} mcp`], env: { ...SERVER_ENV } }
    : { type: 'stdio', command: argv[0], args: [argv[1], 'mcp'], env: { ...SERVER_ENV } };
}

/** A `~/.claude.json` that `init` cannot edit safely: not JSON, or a key on loopguard's path twice. */
export class InvalidClaudeConfigError extends InvalidSettingsError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidClaudeConfigError';
  }
}

/** The result of an edit of Claude Code's configuration. */
export interface ServerEdit {
  /** The new text (the same string when nothing changed). */
  text: string;
  /**
   * The index in the path of the first key `init` added (the keys before it were there already);
   * `--remove` takes out what init added once it is left empty, and nothing before it.
   */
  owned: number;
  /** Whether the server's entry was added (it was not there before). */
  added: boolean;
}

/**
 * `text` (Claude Code's configuration) with loopguard's server at `path`, or without it
 * (`server` undefined). Only the bytes of what is added or taken out change; a blank text is
 * `{}`. Reading the path costs about a `JSON.parse` of the text, whatever its size or layout.
 * @param owned - when taking the server out: the index of the first key of `path` that init
 *   added (recorded when it was installed); what it added is taken out with the server once
 *   empty. @default path.length - 1 (the server's own entry only)
 * @throws InvalidClaudeConfigError when the text is not valid JSON, its root is not an object, a
 *   key on `path` appears twice (Claude Code reads the last one), or a value on it is not an object
 */
export function withServer(
  text: string,
  path: readonly string[],
  server: McpServerEntry | undefined,
  owned = path.length - 1,
): ServerEdit {
  const json = readConfig(text, path);
  const nodes = nodesOn(json.root, path);
  const found = nodes.length === path.length + 1 ? nodes[path.length] : undefined;
  if (server === undefined) {
    if (found === undefined) return { text, owned, added: false };
    // the highest container init added that holds nothing but the way to the server
    let gone = found;
    for (let index = path.length - 2; index >= owned; index--) {
      const container = nodes[index + 1] as Node;
      if (membersOf(container).length !== 1) break;
      gone = container;
    }
    return { text: removeMember(json, gone), owned, added: false };
  }
  if (found !== undefined) {
    if (
      JSON.stringify(JSON.parse(json.text.slice(found.offset, found.offset + found.length))) ===
      JSON.stringify(server)
    )
      return { text, owned: path.length - 1, added: false };
    return { ...withServer(removeMember(json, found), path, server), added: false };
  }
  const depth = nodes.length - 1;
  const value = path.slice(depth + 1).reduceRight<unknown>((inner, key) => ({ [key]: inner }), server);
  return {
    text: appendProperty(json, nodes[depth] as Node, path[depth] as string, value),
    owned: depth,
    added: true,
  };
}

/** Whether `text` (Claude Code's configuration) holds a server at `path`. */
export function hasServer(text: string, path: readonly string[]): boolean {
  return nodesOn(readConfig(text, path).root, path).length === path.length + 1;
}

/** The root and the value of each key of `path` that is there, in order. */
function nodesOn(root: Node, path: readonly string[]): Node[] {
  const nodes = [root];
  for (const key of path) {
    const value = memberValue(nodes.at(-1), key);
    if (value === undefined) break;
    nodes.push(value);
  }
  return nodes;
}

function readConfig(text: string, path: readonly string[]): JsonText {
  if (text.startsWith('\uFEFF')) throw new InvalidClaudeConfigError('starts with a byte order mark');
  const body = text.trim() === '' ? '{}\n' : text;
  try {
    JSON.parse(body);
  } catch {
    throw new InvalidClaudeConfigError(`is not valid JSON (${syntaxErrorOf(body)})`);
  }
  const root = pathTree(body, path);
  if (root.type !== 'object') throw new InvalidClaudeConfigError('must hold a JSON object');
  let node: Node = root;
  for (const [index, key] of path.entries()) {
    const where = path
      .slice(0, index + 1)
      .map((k) => JSON.stringify(k))
      .join(' > ');
    if (countOf(node, key) > 1)
      throw new InvalidClaudeConfigError(
        `holds ${where} twice (Claude Code reads the last one): remove one by hand`,
      );
    const value = memberValue(node, key);
    if (value === undefined || index === path.length - 1) break;
    if (value.type !== 'object') throw new InvalidClaudeConfigError(`has ${where} that is not an object`);
    node = value;
  }
  return { text: body, root };
}

/**
 * The first syntax error, as a line number and a name, never as the text around it: the file holds
 * the user's credentials, and an error message is printed.
 */
function syntaxErrorOf(text: string): string {
  try {
    parseJsonText(text);
  } catch (error) {
    const comments = (() => {
      try {
        parseJsonText(text, true);
        return '; Claude Code reads no comments';
      } catch {
        return '';
      }
    })();
    return `${(error as Error).message}${comments}`;
  }
  return 'JSON.parse refuses it';
}

/**
 * The `mcp_tool` hook entries of the fast path: on each event the command hook is registered for
 * (same matchers), a call of loopguard's `hook` tool with the event's fields; but `SessionEnd` runs
 * `endCommand`, the command hook: Claude Code (2.1.330) calls no `mcp_tool` hook at a session's end
 * (its MCP servers are gone by then), and that event needs no fast answer.
 * @param timeoutSeconds - how long Claude Code waits for one answer.
 * @param endCommand - the command hook (`... hook claude`), for `SessionEnd`.
 */
export function mcpToolEntries(timeoutSeconds: number, endCommand: string): PlannedEntry[] {
  const entry = {
    type: 'mcp_tool',
    server: MCP_SERVER_NAME,
    tool: HOOK_TOOL_NAME,
    input: hookToolInput(),
    timeout: timeoutSeconds,
  };
  return commandEntries('claude', endCommand, timeoutSeconds).map((planned) =>
    planned.event === 'SessionEnd' ? planned : { event: planned.event, matcher: planned.matcher, entry },
  );
}
