import { shellSegments } from './shellSegments.js';

/** A polling command's start: the segment's first word, or after `timeout <duration>`. */
const STARTS = String.raw`^\s*(?:timeout\s+(?:-\S+\s+)*\d\S*\s+)?`;

/**
 * Commands whose repetition is waiting, not looping: `sleep`, `watch`, `wait`, following a log,
 * waiting on CI (`gh run watch|view`, `gh pr checks`) or a rollout. Each names the command a shell
 * segment starts with (after an optional `timeout <duration>`), never a word further on.
 */
export const DEFAULT_EXEMPT_COMMANDS: readonly RegExp[] = Object.freeze([
  new RegExp(`${STARTS}(?:sleep|watch|wait)\\b`),
  new RegExp(`${STARTS}tail\\s+(?:-n\\s*\\d+\\s+)?-[fF]\\b`),
  new RegExp(`${STARTS}gh\\s+(?:run\\s+(?:watch|view)|pr\\s+checks)\\b`),
  new RegExp(`${STARTS}kubectl\\s+(?:rollout\\s+status|wait)\\b`),
]);

/** Tools that poll by design: Claude Code's `BashOutput` (reads a background shell), `sleep`, `wait`. */
export const DEFAULT_EXEMPT_TOOLS: readonly string[] = Object.freeze(['BashOutput', 'sleep', 'wait']);

/** Which actions never count towards a loop. */
export interface StepExemptions {
  /** Tool names exempted whatever their input. */
  tools: readonly string[];
  /** Patterns tested against the action's command text (a string input, else its JSON). */
  commands: readonly RegExp[];
}

/** A single `&` that sends a command to the background (not `&&`, `2>&1` or `&>`). */
const BACKGROUND = /(?<![<>&])&(?![>&])/;

/**
 * A command substitution (`$(…)`, `` `…` ``) or a process substitution (`<(…)`, `>(…)`): another
 * command run inside a segment, whose work no waiting command's name covers (`sleep 0 $(cat
 * missing.txt)`, trust62). An arithmetic expansion, `$((…))`, runs none.
 */
const SUBSTITUTION = /\$\((?!\()|`|[<>]\(/;

/**
 * Whether an action is exempt: its tool is listed, or every command of its shell command line
 * matches a pattern (each segment split at `;`, `&&`, `||`, `|`, `&` and line ends; comment lines
 * left out) and none runs a substitution ({@link SUBSTITUTION}), so a waiting command never hides
 * the work beside it or inside it (`sleep 2; cat missing.txt` is judged). An action with no shell
 * command is matched as its whole text (its input's JSON).
 * @example isExemptAction({ tools: [], commands: DEFAULT_EXEMPT_COMMANDS }, 'bash', 'sleep 30'); // true
 */
export function isExemptAction(
  exemptions: StepExemptions,
  tool: string,
  command: string,
  text = command,
): boolean {
  if (exemptions.tools.includes(tool)) return true;
  if (exemptions.commands.length === 0) return false;
  if (command === '') return matches(exemptions.commands, text);
  // The first command settles most lines: only the first line is split to find it, not a
  // script's whole body (a quote left open on that line ends the command there for this test).
  const lineEnd = command.indexOf('\n');
  const [head = ''] = shellSegments(lineEnd === -1 ? command : command.slice(0, lineEnd), 1);
  if (!head.startsWith('#') && !matches(exemptions.commands, beforeBackground(head))) return false;
  if (SUBSTITUTION.test(command)) return false;
  const commands = commandsOf(shellSegments(command));
  return commands.length > 0 && commands.every((segment) => matches(exemptions.commands, segment));
}

/** `segment.split(BACKGROUND, 1)[0]`, found without the array and the match `split` builds. */
function beforeBackground(segment: string): string {
  const at = segment.search(BACKGROUND);
  return at === -1 ? segment : segment.slice(0, at);
}

/** The commands of shell segments: a background `&` splits one, a comment line is none. */
function commandsOf(segments: string[]): string[] {
  return segments
    .flatMap((segment) => segment.split(BACKGROUND))
    .filter((segment) => segment.trim() !== '' && !segment.trimStart().startsWith('#'));
}

function matches(patterns: readonly RegExp[], text: string): boolean {
  return patterns.some((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(text);
  });
}
