import { type Clock, systemClock } from '../kernel/clock.js';
import { errorSignature } from '../signatures/errorSignature.js';
import { stripAnsi } from '../signatures/normalizeVolatile.js';
import { elapsedMinutes } from './checkSafetyGuards.js';
import { remainingIterationExtension } from './extendBudget.js';
import { DEFAULT_CONFIG, type SafetyConfig } from './safetyConfig.js';

/** What seed 001's escalation report shows. */
export interface EscalationReportInput {
  /** The guard that triggered, e.g. `max_iterations` or `loop_detection`. */
  guardName: string;
  /** Iterations finished. */
  iteration: number;
  /** Iterations allowed. */
  maxIterations: number;
  /** Minutes elapsed. */
  elapsedMinutes: number;
  /** Minutes allowed. */
  maxRuntimeMinutes: number;
  /** Errors in a row. */
  consecutiveErrors: number;
  /** The last iteration's output, summarised with {@link summarizeOutput}. */
  lastOutput: string;
  /**
   * N of option 1 ("Continue with N more iterations"); 0 when the cap leaves no room.
   * @default 5
   */
  additionalIterations?: number;
}

/** Longest last-output summary in a report. */
const SUMMARY_LENGTH = 300;

/**
 * A brief summary of one output for a human: the first error line and the failing tests, the
 * infrastructure error, or the last lines; ANSI colours removed, at most `maxLength` characters.
 * @example summarizeOutput('FAIL src/a.test.ts > adds\nAssertionError: expected 3 to be 4'); // 'FAIL src/a.test.ts > adds (AssertionError) — failing tests: src/a.test.ts > adds'
 */
export function summarizeOutput(output: string, maxLength = SUMMARY_LENGTH): string {
  const error = errorSignature(output);
  let summary: string;
  if (error.kind === 'infrastructure') {
    summary = `Infrastructure error (${error.infrastructure}): ${error.firstErrorLine ?? lastLines(output)}`;
  } else if (error.kind === 'failure') {
    const type =
      error.errorType !== null && !error.firstErrorLine?.includes(error.errorType)
        ? ` (${error.errorType})`
        : '';
    const tests = error.failingTests.length > 0 ? ` — failing tests: ${error.failingTests.join(', ')}` : '';
    summary = `${error.firstErrorLine?.replace(/\s+/g, ' ')}${type}${tests}`;
  } else {
    summary = lastLines(output) || '(no output)';
  }
  return summary.length <= maxLength ? summary : `${summary.slice(0, maxLength - 1)}…`;
}

/**
 * Seed 001's escalation report, as markdown.
 * @example
 * formatEscalationReport({ guardName: 'max_iterations', iteration: 10, maxIterations: 10, elapsedMinutes: 7.5,
 *   maxRuntimeMinutes: 15, consecutiveErrors: 2, lastOutput: 'FAIL src/a.test.ts > adds' });
 * // '## Guard Triggered: max_iterations\n\n**Iteration**: 10 of 10\n**Runtime**: 7.5 of 15 minutes\n...'
 */
export function formatEscalationReport(input: EscalationReportInput): string {
  const continueOption =
    (input.additionalIterations ?? 5) > 0
      ? `Continue with ${input.additionalIterations ?? 5} more iterations`
      : 'Continue with more iterations (not available: max_iterations is at its cap)';
  return [
    `## Guard Triggered: ${input.guardName}`,
    '',
    `**Iteration**: ${input.iteration} of ${input.maxIterations}`,
    `**Runtime**: ${minutes(input.elapsedMinutes)} of ${minutes(input.maxRuntimeMinutes)} minutes`,
    `**Consecutive errors**: ${input.consecutiveErrors}`,
    '',
    '**Last output summary**:',
    summarizeOutput(input.lastOutput),
    '',
    '**Options**:',
    `1. ${continueOption}`,
    '2. Accept current state',
    '3. Review iteration history',
    '4. Cancel task',
    '',
  ].join('\n');
}

/** The loop's state when a seed 001 guard triggered, for {@link escalationReportFor}. */
export interface EscalationContext {
  /** Iterations finished. */
  iteration: number;
  /** When the loop started (`Date` or epoch ms). */
  startTime: Date | number;
  /** Errors in a row. */
  consecutiveErrors: number;
  /** Latest outputs, oldest first; the last one is summarised. */
  recentOutputs: readonly string[];
  /** The configuration in force. @default DEFAULT_CONFIG */
  config?: SafetyConfig;
  /** Source of "now". @default systemClock */
  clock?: Clock;
  /** N of "Continue with N more iterations". @default min(5, iterations left below the cap of 50) */
  additionalIterations?: number;
}

/**
 * Seed 001's escalation report for the guard that {@link checkSafetyGuards} reported.
 * @example
 * const check = checkSafetyGuards(i, start, errors, outputs, config, clock);
 * if (!check.safe) notify(escalationReportFor(check.guard ?? 'unknown', { iteration: i, startTime: start,
 *   consecutiveErrors: errors, recentOutputs: outputs, config, clock }));
 */
export function escalationReportFor(guardName: string, context: EscalationContext): string {
  const config = context.config ?? DEFAULT_CONFIG;
  return formatEscalationReport({
    guardName,
    iteration: context.iteration,
    maxIterations: config.max_iterations,
    elapsedMinutes: elapsedMinutes(context.startTime, context.clock ?? systemClock),
    maxRuntimeMinutes: config.max_runtime_minutes,
    consecutiveErrors: context.consecutiveErrors,
    lastOutput: context.recentOutputs.at(-1) ?? '',
    additionalIterations: context.additionalIterations ?? Math.min(5, remainingIterationExtension(config)),
  });
}

/** Minutes with at most one decimal: 7.5, 15, 0.3. */
function minutes(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function lastLines(output: string): string {
  const lines = stripAnsi(output)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.slice(-3).join(' / ');
}
