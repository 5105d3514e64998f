import type { StepEvidence } from './history/stepHistory.js';
import { shorten } from './keys/shorten.js';
import type { RuleHit, StepLoopType } from './rules/StepRule.js';

/** The next step for each loop kind when the evidence names nothing more specific (a rule's `advice` wins). */
export const ADVICE: Readonly<Record<StepLoopType, string>> = Object.freeze({
  outcome_stagnation:
    'Check that the edited code is what runs before editing again: print the imported module path, add a print or an assert in the changed code, and rebuild, reinstall or clear caches if it does not run.',
  repeated_action:
    'Running it again will not change the result: use what it already returned, or take a different action.',
  near_duplicate:
    'Small variations of the same action keep giving the same result: the variation does not matter; change the approach (another file, another tool, another hypothesis).',
  growing_output:
    'Each run only adds the same content again (the file or output grows by the same block): stop repeating it, look at the current state of the file and fix it once.',
  stagnation:
    'The last actions showed nothing new: write down what you know and what you have not checked yet, then test the most likely of those.',
  rejected_turn: 'Your replies are being rejected: answer with exactly one command in the expected format.',
  same_error:
    'Retrying gives the same failure: read the error line, find the code it names, and change that code, the command or the approach before running it again.',
  oscillation: 'Alternating between these two actions makes no progress: decide on one and move on.',
  cycle:
    'This sequence gave the same results every time: change one of its actions or try a different approach.',
  repeated_message:
    'Repeating the same message makes no progress: act on it (run the next command) or try something new.',
  chanting: 'Your reply repeats the same text over and over: stop repeating it and continue with the task.',
});

/**
 * `text` shortened, on one line: an output's or a command's line breaks (a trailing one, an exit
 * code on a line of its own) would break the message's one line per evidence.
 */
function inline(text: string): string {
  return shorten(text, 120).replace(/\s+/g, ' ').trim();
}

function describe(evidence: StepEvidence): string {
  if (evidence.message !== undefined) return `message "${inline(evidence.message)}"`;
  const action = evidence.action === undefined ? '(no action)' : `\`${inline(evidence.action)}\``;
  const output =
    evidence.output === undefined ? '' : ` → ${evidence.error ? 'error ' : ''}"${inline(evidence.output)}"`;
  return `${evidence.call === undefined ? `step ${evidence.step}` : `call ${evidence.call}`}: ${action}${output}`;
}

/**
 * Since when the loop runs, in tool calls: the call of the evidence the loop began with (a
 * message: the calls before it). Steps only for evidence an older detector kept without calls.
 */
function sinceText(hit: RuleHit): string {
  const first =
    hit.evidence.find((evidence) => evidence.step === hit.since) ??
    hit.evidence.find((evidence) => evidence.call !== undefined);
  const call = first?.call;
  if (call === undefined) return `since step ${hit.since}`;
  if (first?.message === undefined) return `since call ${call}`;
  return call === 0 ? 'since the first reply' : `since the reply after call ${call}`;
}

/**
 * The head of a stop refused before call `call` ran: which earlier call it repeats. The rule's
 * summary counts the refused call among the failures or results; it never ran, so the head does not
 * repeat that count (story56).
 */
function refusedHead(hit: RuleHit, call: number): string {
  const action = hit.evidence.find((e) => e.call === call)?.action;
  const earlier = hit.evidence
    .filter((e) => e.call !== undefined && e.call < call && e.action === action)
    .at(-1);
  const repeated = earlier === undefined ? 'an earlier call' : `call ${earlier.call}`;
  return `Stopped (${hit.loopType}): call ${call} was refused before it ran: it repeats ${repeated}, with nothing changed since, and the loop went on after the nudge.`;
}

/**
 * The text a caller hands to the agent: what repeats, since when, the evidence, what to try
 * instead. For a stop it says the loop went on after the nudge; for a stop of a call refused before
 * it ran (`refused`, its number), that the call did not run, and it quotes only the calls that ran.
 *
 * @example stepLoopMessage('nudge', hit); // 'Loop detected (same_error): the same action failed ...'
 */
export function stepLoopMessage(rung: 'nudge' | 'stop', hit: RuleHit, refused?: number): string {
  const head =
    rung === 'nudge'
      ? `Loop detected (${hit.loopType}): ${hit.summary}, ${sinceText(hit)}.`
      : refused !== undefined
        ? refusedHead(hit, refused)
        : `Stopped (${hit.loopType}): the loop went on after the nudge; ${hit.summary}, ${sinceText(hit)}.`;
  const unique = new Map<string, StepEvidence>();
  for (const evidence of hit.evidence.filter((e) => refused === undefined || e.call !== refused))
    unique.set(`${evidence.action}\u0000${evidence.output}\u0000${evidence.message}`, evidence);
  const lines = [...unique.values()].slice(-5).map((evidence) => `- ${describe(evidence)}`);
  return [head, 'Repeating:', ...lines, hit.advice ?? ADVICE[hit.loopType]].join('\n');
}
