/**
 * Commands whose repetition is waiting, not looping: `sleep`, `watch`, `wait`, following a log,
 * waiting on CI (`gh run watch|view`, `gh pr checks`) or a rollout.
 */
export const DEFAULT_EXEMPT_COMMANDS: readonly RegExp[] = Object.freeze([
  /^\s*(?:sleep|watch|wait)\b/,
  /\btail\s+(?:-n\s*\d+\s+)?-[fF]\b/,
  /\bgh\s+(?:run\s+(?:watch|view)|pr\s+checks)\b/,
  /\bkubectl\s+(?:rollout\s+status|wait)\b/,
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

/**
 * Whether an action is exempt: its tool is listed, or its command text matches a pattern.
 * @example isExemptAction({ tools: [], commands: DEFAULT_EXEMPT_COMMANDS }, 'bash', 'sleep 30'); // true
 */
export function isExemptAction(exemptions: StepExemptions, tool: string, commandText: string): boolean {
  if (exemptions.tools.includes(tool)) return true;
  return exemptions.commands.some((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(commandText);
  });
}
