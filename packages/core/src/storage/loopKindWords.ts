/**
 * Each loop kind the step detector stops as a user reads it (doors67): the stored kind is a code
 * (`near_duplicate`), what `status`, the dashboard, the status line and `scan` print is not.
 */
const WORDS: Readonly<Record<string, string>> = Object.freeze({
  repeated_action: 'repeated call',
  near_duplicate: 'near-identical calls',
  growing_output: 'output only growing',
  same_error: 'same error',
  stagnation: 'nothing new learned',
  outcome_stagnation: 'same result after edits',
  rejected_turn: 'rejected replies',
  oscillation: 'back and forth',
  cycle: 'repeated sequence of calls',
  repeated_message: 'repeated message',
  chanting: 'text repeated in one reply',
});

/**
 * A loop's kind in words; `--json`, SQL, the stored entries and the agent's message keep the code.
 * A kind this build does not know (a task loop's, a refusal's) is printed with spaces for its
 * underscores.
 * @example loopKindWords('near_duplicate'); // 'near-identical calls'
 */
export function loopKindWords(kind: string): string {
  return Object.hasOwn(WORDS, kind) ? (WORDS[kind] as string) : kind.replaceAll('_', ' ');
}
