import { basename } from 'node:path';
import { VALUE_FOLLOWS } from './keyValue.js';

/**
 * A server registered under loopguard's name (trust70): the fast path's hooks call the tool `hook`
 * of the MCP server named `loopguard` (`mcp__loopguard__hook`), so a server of the model's own under
 * that name in a project's `.mcp.json` or Claude Code's `~/.claude.json` (its local scope shadows the
 * user's) would answer for loopguard, and one that answers nothing lets every call through. Read in
 * the text a call writes into one of those files (a `Write`'s content, an `Edit`'s new text) and in
 * a shell command that names one: loopguard's name set as a key (`"loopguard": {…}`, a `jq` path
 * set, `.mcpServers.loopguard = …`). Claude Code's own `claude mcp add loopguard` is
 * `hooksRemovedCall.ts`'s.
 */

/** What the model is told when such a call is refused. */
export const MCP_NAME_REFUSED =
  "loopguard refused this call: it registers an MCP server under loopguard's name, the server loopguard's hooks call; which server that is, is the user's to set (`loopguard init claude`). Give your server another name.";

/** The files that register Claude Code's MCP servers: a project's `.mcp.json`, the user's `.claude.json`. */
const SERVERS_FILE = /^\.(?:mcp|claude)\.json$/;
const SERVERS_FILE_IN_COMMAND = /(?:^|[\s'"`/=<>])\.(?:mcp|claude)\.json(?=$|[\s'"`;&|)<>])/;

/** loopguard's name as a JSON (or Python-quoted) key, and set as a `jq` path or index. */
const NAME_KEY = /['"]loopguard['"]\s*:/.source;
const NAME_PATH_SET =
  /\bmcpServers\s*\.\s*loopguard\s*(?:\|=|=(?!=))|\[\s*['"]loopguard['"]\s*\]\s*(?:\|=|=(?!=))/.source;

/** loopguard's name set as a key in a file's text. */
const NAME_SET = new RegExp(`${NAME_KEY}|${NAME_PATH_SET}`);

/** The same in a command, whose key set is followed by its value ({@link VALUE_FOLLOWS}): a search for it is not. */
const NAME_SET_IN_COMMAND = new RegExp(`${NAME_KEY}${VALUE_FOLLOWS}|${NAME_PATH_SET}`);

/** Whether a file tool's write of `path` with `texts` (its written texts) sets loopguard's server name. */
export function writesServerName(path: string, texts: unknown[]): boolean {
  return (
    SERVERS_FILE.test(basename(path)) && texts.some((text) => typeof text === 'string' && NAME_SET.test(text))
  );
}

/** Whether `command` names a servers file and sets loopguard's name as a key in it. */
export function commandSetsServerName(command: string): boolean {
  return SERVERS_FILE_IN_COMMAND.test(command) && NAME_SET_IN_COMMAND.test(command);
}
