import type { Clock, ContextEntryInput } from '@loopguard/core';
import {
  loadLibraryCost,
  priceBook,
  SpendGuard,
  type SpendVerdict,
  spendEntry,
  spendGuardOn,
  type UsageRecord,
  type UsageStreamFormat,
  usageStream,
} from '@loopguard/core/spend';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import type { RunDisplay, RunEvent } from './RunDisplay.js';
import type { RunOptions } from './runOptions.js';
import type { Outcome } from './sessionState.js';

/**
 * The spend guard of `loopguard run`: the usage records of the agent's stream (`--agent-stream`)
 * counted for the run and for its task over every iteration of this process (a resumed run starts
 * its count afresh).
 */
export class RunSpend {
  private readonly usage: (event: unknown, at: number) => UsageRecord[];

  private constructor(
    private readonly guard: SpendGuard,
    format: UsageStreamFormat,
    private readonly clock: Clock,
  ) {
    this.usage = usageStream(format);
  }

  /** The run's guard, or `null` when the options set no budget (the pricing library loads only then). */
  static async create(options: RunOptions, clock: Clock): Promise<RunSpend | null> {
    const spend = options.spend;
    if (spend === undefined || !spendGuardOn(spend) || options.agentStream === undefined) return null;
    const costOf = priceBook(spend.prices, await loadLibraryCost());
    return new RunSpend(new SpendGuard(spend, costOf, 'this run'), options.agentStream, clock);
  }

  /**
   * Counts the usage one line of the agent's output carries (lines that name no usage are not parsed).
   * @returns a warning or a stop, or `undefined`.
   */
  line(line: string, task: string | null): SpendVerdict | undefined {
    if (!line.includes('usage') && !line.includes('"stats"')) return undefined;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return undefined;
    }
    const now = this.clock.now();
    const records = this.usage(event, now);
    return records.length === 0 ? undefined : this.guard.observe(records, now, task ?? undefined);
  }
}

/** Where {@link settleSpend} reports. */
export interface SpendReport {
  /** The run's id (the entries' related task without a task). */
  runId: string;
  /** The iteration the usage came in (1-based). */
  iteration: number;
  /** The task the run works on; `null` without `--task`. */
  task: string | null;
  /** Where the warning or stop is shown. */
  display: RunDisplay;
  /** Writes the context entries (`spend_warning`, `spend_stop`) to the run's state file; absent: not written. */
  record: ((entry: ContextEntryInput) => void) | undefined;
  /** Epoch ms: the entries' time. */
  now: number;
}

/**
 * Records an iteration's spend warnings and stop as context entries and display events
 * (`spend_warning`, `spend_stop`); a stop ends the run `budget_spent` with its own exit code
 * (`EXIT_CODES.spendStopped`, 6: a script tells it from a budget of iterations or runtime, 5).
 * @returns the run's outcome after a stop, else `null`.
 */
export function settleSpend(verdicts: readonly SpendVerdict[], report: SpendReport): Outcome | null {
  let stop: SpendVerdict | undefined;
  for (const verdict of verdicts) {
    const entry = spendEntry(verdict, {
      taskId: report.task ?? report.runId,
      detectedAt: report.now,
      metadata: { runId: report.runId, iteration: report.iteration },
    });
    report.record?.(entry);
    report.display.event(
      entry.topic as Extract<RunEvent, 'spend_warning' | 'spend_stop'>, // spendEntry's topic
      {
        run: report.runId,
        iteration: report.iteration,
        scope: verdict.scope,
        reason: verdict.reason,
        spent: verdict.evidence.spent,
      },
      verdict.message,
    );
    if (verdict.action === 'stop') stop ??= verdict;
  }
  return stop === undefined
    ? null
    : { status: 'budget_spent', exitCode: EXIT_CODES.spendStopped, reason: stop.message };
}
