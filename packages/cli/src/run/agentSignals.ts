import type { StructuredResult } from './agentResult.js';

/**
 * How tool results say a permission was denied: Claude Code's "Claude requested permissions to use
 * Bash, but you haven't granted it yet", and the usual "permission to use X was denied" /
 * "Permission denied for tool X". Group 1 or 2 is the tool.
 */
const DENIAL =
  /requested permissions? to (?:use|write to|edit|read) ([\w./-]+), but you haven't granted it|permission (?:to use |for (?:tool )?)([\w./-]+) (?:was |has been )?denied/i;

/**
 * The tools whose calls were denied a permission in an iteration: Claude Code's
 * `permission_denials` in its result (`tool_name`), and tool results in the output that say so.
 * @example permissionDenialsOf('{"type":"result","permission_denials":[{"tool_name":"Bash"}]}', null); // ['Bash']
 */
export function permissionDenialsOf(output: string, structured: StructuredResult | null): string[] {
  const tools = [...(structured?.permissionDenials ?? [])];
  for (const line of output.split('\n')) {
    if (!/permission/i.test(line)) continue;
    const match = DENIAL.exec(line);
    const tool = match?.[1] ?? match?.[2];
    if (tool !== undefined) tools.push(tool);
  }
  return tools;
}

/** Words by which an agent asks the user something (checked on its last line, which ends with `?`). */
const ASKING =
  /\b(?:would you like|do you want|should i|shall i|can you|could you|would you|which (?:one|option|approach)|please (?:confirm|clarify|let me know|provide|advise)|let me know|what should|how would you like|is it ok)\b/i;

/**
 * The question an iteration ends with, when it ends asking the user for input (its final text, or
 * the last line of its output, is a question addressed to the user); else `null`.
 * @example questionOf('I found two configs.\nWhich one should I use?', null); // 'Which one should I use?'
 */
export function questionOf(output: string, structured: StructuredResult | null): string | null {
  const text = structured?.text ?? output;
  const last = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .at(-1);
  if (last === undefined || !last.endsWith('?') || last.startsWith('{')) return null;
  return ASKING.test(last) || /^(?:which|what|should|shall|do|does|can|could|would|may|is|are)\b/i.test(last)
    ? last.slice(-300)
    : null;
}
