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
] as const;
const JSON_FIELDS = ['tool_input', 'tool_response'] as const;

/**
 * The `input` of loopguard's `mcp_tool` hook entries: every field the hook reads, as `${field}`.
 * @example hookToolInput().tool_input; // '${tool_input}'
 */
export function hookToolInput(): Record<string, string> {
  return Object.fromEntries([...STRING_FIELDS, ...JSON_FIELDS].map((field) => [field, `\${${field}}`]));
}

/**
 * The Claude Code event a `hook` tool call carries, rebuilt from its arguments: an empty string
 * is a field the event did not have; `tool_input` and `tool_response` are parsed back from JSON
 * (a text that is not JSON stays the text: a tool whose response is a string).
 * @throws TypeError when the arguments are not an object of strings (not a hook's call).
 */
export function eventOfToolArguments(args: unknown): Record<string, unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw new TypeError('the hook tool takes an object of strings');
  const given = args as Record<string, unknown>;
  const event: Record<string, unknown> = {};
  for (const field of [...STRING_FIELDS, ...JSON_FIELDS]) {
    const value = given[field];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') throw new TypeError(`argument ${field} must be a string`);
    event[field] = (JSON_FIELDS as readonly string[]).includes(field) ? parsedOrText(value) : value;
  }
  return event;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
