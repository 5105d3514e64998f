import { outputSignature } from '../signatures/outputSignature.js';
import type { AnalysedIteration, Guard, GuardIteration, GuardState, GuardVerdict } from './Guard.js';
import type { IterationHistoryEntry } from './iterationHistory.js';
import { isExempt, type SignatureExemption } from './signatureExemption.js';

/**
 * What {@link guardStateOf} builds a state from.
 * @example { iteration: 4, startedAt: null, now: clock.now(), history }
 */
export interface GuardStateInput {
  /** The iteration about to run, 1-based. */
  iteration: number;
  /** When the run started, epoch ms; `null` when unknown. */
  startedAt: number | null;
  /** Now, epoch ms. */
  now: number;
  /** The finished iterations, oldest first. */
  history: readonly GuardIteration[];
  /** Signatures whose repetition is legitimate. @default [] */
  exemptions?: readonly SignatureExemption[];
  /** Failed iterations in a row when the caller counted them itself. @default counted from `history` */
  consecutiveFailures?: number;
}

/**
 * One finished iteration with what every guard needs derived once: its output's signature, and
 * whether it is an infrastructure error, exempt, or a failure. A failure is `passed: false`, or no
 * `passed` and an error in the output; infrastructure errors and exempt outputs are never failures.
 * @example analyseIteration({ iteration: 1, output: 'HTTP 429 Too Many Requests' }, []).infrastructure // true
 */
export function analyseIteration(
  entry: GuardIteration,
  exemptions: readonly SignatureExemption[],
): AnalysedIteration {
  const signature = entry.output === undefined ? null : outputSignature(entry.output);
  const infrastructure = signature?.kind === 'infrastructure';
  const exempt = signature !== null && isExempt(signature, exemptions);
  const failed =
    !infrastructure &&
    !exempt &&
    (entry.passed === false || (entry.passed === undefined && signature?.kind === 'failure'));
  return { entry, signature, infrastructure, exempt, failed };
}

/**
 * The state every guard reads, with each iteration analysed once.
 * @example guardStateOf({ iteration: 4, startedAt: null, now: 0, history: [{ iteration: 1, passed: false }] })
 */
export function guardStateOf(input: GuardStateInput): GuardState {
  const history = input.history.map((entry) => analyseIteration(entry, input.exemptions ?? []));
  const failureRun: AnalysedIteration[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i] as AnalysedIteration;
    if (item.infrastructure || item.exempt) continue;
    if (!item.failed) break;
    failureRun.unshift(item);
  }
  return {
    iteration: input.iteration,
    startedAt: input.startedAt,
    now: input.now,
    history,
    failureRun,
    consecutiveFailures: input.consecutiveFailures ?? failureRun.length,
  };
}

/**
 * Seed 000's history entries as the guards see them (`validationResult` flattened).
 * @example guardHistoryOf([{ iteration: 1, validationResult: { passed: false } }]) // [{ iteration: 1, passed: false }]
 */
export function guardHistoryOf(entries: readonly IterationHistoryEntry[]): GuardIteration[] {
  return entries.map(({ iteration, validationResult: { passed, score, flags } }) => {
    const entry: GuardIteration = { iteration };
    if (passed !== undefined) entry.passed = passed;
    if (score !== undefined) entry.score = score;
    if (flags !== undefined) entry.flags = flags;
    return entry;
  });
}

/**
 * The guard engine: runs `guards` in order over `state` and returns the first verdict, or `null`
 * when every guard lets the iteration run. {@link GuardSet} and the seed functions all decide here.
 * @example runGuards([new MaxIterationsGuard(10)], state)
 */
export function runGuards(guards: readonly Guard[], state: GuardState): GuardVerdict | null {
  for (const guard of guards) {
    const verdict = guard.check(state);
    if (verdict !== null) return verdict;
  }
  return null;
}
