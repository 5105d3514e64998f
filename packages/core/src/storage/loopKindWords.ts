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

/** The head of a loop message loopguard gives the agent: `Loop detected (<kind>): `, `Stopped (<kind>): `, after `loopguard: ` in a hook's reason. */
const MESSAGE_HEAD = /^((?:loopguard: )?(?:Loop detected|Stopped) \()(\w+)(\): )/;

/**
 * A loop message the agent got, as a person reads it quoted (`status --session`, the dashboard's
 * entries, the demo): its kind in words, the rest as the agent read it (sess68). The message itself
 * keeps the code: it is what the model read, and `scan` knows loopguard's own verdicts in a
 * transcript by it. Any other text is returned as it is.
 * @example messageWords('Stopped (same_error): call 5 was refused'); // 'Stopped (same error): call 5 was refused'
 */
export function messageWords(message: string): string {
  return message.replace(MESSAGE_HEAD, (_, head: string, kind: string, tail: string) => {
    return `${head}${loopKindWords(kind)}${tail}`;
  });
}
