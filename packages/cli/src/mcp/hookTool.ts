import { recordOf } from '@loopguard/core/internal';
import type { EventFieldText } from '../hook/eventText.js';
import { HookInputError } from '../hook/hookEvent.js';
/**
 * loopguard's one MCP tool, `hook`, as Claude Code's `type: "mcp_tool"` hooks call it: Claude Code
 * fills each string of the hook's `input` from the event (`${tool_input}` becomes the JSON of the
 * tool's input, checked with Claude Code 2.1.330), and reads the tool's text as it reads a command
 * hook's stdout.
 */

/** The MCP server's name in Claude Code's configuration (`mcp__loopguard__hook` to the model). */
export const MCP_SERVER_NAME = 'loopguard';
/** The tool's name. */
export const HOOK_TOOL_NAME = 'hook';
/** How the model sees the tool: a tool call of its own is refused before it runs. */
export const MODEL_TOOL_NAME = `mcp__${MCP_SERVER_NAME}__${HOOK_TOOL_NAME}`;

/** The event fields the hook hands over: strings as they are, objects as their JSON. */
const STRING_FIELDS = [
  'session_id',
  'hook_event_name',
  'cwd',
  'tool_name',
  'tool_use_id',
  'error',
  'last_assistant_message',
  'transcript_path',
  // a subagent's calls carry these too: its run is judged on its own (see claudeSubagent.ts)
  'agent_id',
  'agent_type',
] as const;
// `tool_calls`: a `PostToolBatch`'s calls (refused69)
const JSON_FIELDS = ['tool_input', 'tool_response', 'tool_calls'] as const;

/**
 * The `input` of loopguard's `mcp_tool` hook entries: every field the hook reads, as `${field}`.
 * @example hookToolInput().tool_input; // '${tool_input}'
 */
export function hookToolInput(): Record<string, string> {
  return Object.fromEntries([...STRING_FIELDS, ...JSON_FIELDS].map((field) => [field, `\${${field}}`]));
}

/**
 * The Claude Code event a `hook` tool call carries, as the text of each field a command hook reads
 * on stdin (so that they are read within the same bounds, `parseEventFields`): an empty string is a
 * field the event did not have. Claude Code writes an object of `tool_input` or `tool_response` as
 * its JSON and a string as it is, so one that starts as JSON does (`[`, `{`, `"`) is read as JSON
 * when it is one JSON value, else as the plain text it is (`[ERROR] connection refused`), as the
 * command hook reads that string.
 * @throws HookInputError naming the argument when they are not an object of strings (not a hook's call).
 */
export function eventFieldsOfToolArguments(args: unknown): EventFieldText[] {
  const given = recordOf(args);
  if (given === undefined) throw new HookInputError('the hook tool takes an object of strings');
  const fields: EventFieldText[] = [];
  for (const field of [...STRING_FIELDS, ...JSON_FIELDS]) {
    const value = given[field];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') throw new HookInputError(`argument ${field} must be a string`);
    const json = (JSON_FIELDS as readonly string[]).includes(field) && /^\s*[[{"]/.test(value);
    fields.push(json ? [field, value, 'json or text'] : [field, JSON.stringify(value)]);
  }
  return fields;
}
