import { actionKey, actionText } from '@loopguard/core/internal';
import { canonicalInput, type Step } from '@loopguard/core/steps';

/** The detector's identity of an action: the same normalised text means the same action. */
export function keyOf(tool: string, input: unknown): string {
  const canonical = canonicalInput(tool, input);
  return actionKey(tool, actionText(canonical), canonical);
}

/**
 * A tool call and its result as the detector's two steps.
 * @param refused - the CLI refused the call before it ran. @default false
 */
export function turnSteps(
  tool: string,
  input: unknown,
  output: string,
  error: boolean,
  refused = false,
): Step[] {
  return [
    { type: 'action', tool, input },
    { type: 'observation', tool, output, error, ...(refused ? { refused } : {}) },
  ];
}
