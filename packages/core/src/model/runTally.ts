import { InvalidInputError } from '../kernel/errors.js';
import { assertFiniteNumber, assertLimit, assertNonEmptyString, describeValue } from '../kernel/validate.js';

/**
 * Where a framework adapter's run stands: the one row a store keeps for the run (keyed by
 * `adapter` and `runId`), replaced as the run goes on, so that `status` and the dashboard show a
 * run loopguard did not stop with its tool calls and dollars, as they show a hook session.
 * @example
 * stateMachine.recordRunTally?.({ adapter: 'ai-sdk', runId: 'r1', projectDir: '/repo', at: Date.now(),
 *   toolCalls: 7, tokens: null, costUsd: null, unpricedTokens: null, budgetUsd: null, budgetTokens: null, ended: false });
 */
export interface RunTally {
  /** The framework's name (`ai-sdk`, `langgraph`, `openai-agents`, `claude-agent-sdk`). */
  readonly adapter: string;
  /** The run's id (its entries' `runId`). */
  readonly runId: string;
  /** The folder the run works in (its `run_started` entry's `projectDir`). */
  readonly projectDir: string;
  /** When the tally was taken (ms since the epoch): the run's last activity. */
  readonly at: number;
  /** Tool calls the run has made so far. */
  readonly toolCalls: number;
  /** Tokens counted by the spend guard; `null` without a budget (nothing counts them). */
  readonly tokens: number | null;
  /** Dollars of the priced replies; `null` without a budget. */
  readonly costUsd: number | null;
  /** Tokens of replies whose model has no price; `null` without a budget. */
  readonly unpricedTokens: number | null;
  /** The run's dollar cap; `null` when none is set. */
  readonly budgetUsd: number | null;
  /** The run's token cap; `null` when none is set. */
  readonly budgetTokens: number | null;
  /** Whether the run has ended (the adapter saw its end): a door then no longer reads it `running`. */
  readonly ended: boolean;
}

function assertCountOrNull(value: unknown, name: string): void {
  if (value !== null) assertLimit(value, name);
}

function assertAmountOrNull(value: unknown, name: string): void {
  if (value === null) return;
  assertFiniteNumber(value, name);
  if (value < 0) throw new InvalidInputError(`${name} must not be negative, got ${value}`);
}

/**
 * Checks a {@link RunTally} before a store writes it: every store calls it, so that each rejects the
 * same tally with the same error.
 * @throws InvalidInputError naming the field.
 * @example validateRunTally(tally);
 */
export function validateRunTally(tally: RunTally): void {
  if (tally === null || typeof tally !== 'object') {
    throw new InvalidInputError(`tally must be an object, got ${describeValue(tally)}`);
  }
  assertNonEmptyString(tally.adapter, 'tally.adapter');
  assertNonEmptyString(tally.runId, 'tally.runId');
  if (typeof tally.projectDir !== 'string') {
    throw new InvalidInputError(`tally.projectDir must be a string, got ${describeValue(tally.projectDir)}`);
  }
  assertFiniteNumber(tally.at, 'tally.at');
  assertLimit(tally.toolCalls, 'tally.toolCalls');
  assertCountOrNull(tally.tokens, 'tally.tokens');
  assertAmountOrNull(tally.costUsd, 'tally.costUsd');
  assertCountOrNull(tally.unpricedTokens, 'tally.unpricedTokens');
  assertAmountOrNull(tally.budgetUsd, 'tally.budgetUsd');
  assertCountOrNull(tally.budgetTokens, 'tally.budgetTokens');
  if (typeof tally.ended !== 'boolean') {
    throw new InvalidInputError(`tally.ended must be a boolean, got ${describeValue(tally.ended)}`);
  }
}
