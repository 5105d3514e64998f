import type { Clock, ContextEntryInput } from '@loopguard/core';
import {
  type CostOf,
  loadLibraryCost,
  parseSpendOptions,
  priceBook,
  SpendGuard,
  type SpendOptions,
  type SpendTotals,
  type SpendVerdict,
  spendEntry,
  spendGuardOn,
  type UsageRecord,
} from '@loopguard/core/spend';

/** What {@link RunSpend} reports to. */
export interface RunSpendContext {
  /** The time of each reply counted (the burn rate) and of the entries written. */
  clock: Clock;
  /** The task the run works on (the `task` budget, the entries' related task). */
  taskId: string | undefined;
  /** The run's id (the entries' related task without a task). */
  runId: string | undefined;
  /** Tool calls the run has made so far: a stop entry names the count (`toolCall`), which the stop ends. */
  toolCalls(): number;
  /** Writes a `spend_warning` / `spend_stop` entry (when the guard has a state machine). */
  record(entry: ContextEntryInput): void;
  /** Delivers a warning to the agent, like a nudge. */
  warn(message: string): void;
}

/**
 * The spend guard of one adapter's run: the usage each step reports, counted by a
 * {@link SpendGuard}; warnings go out like nudges, the first stop is kept.
 */
export class RunSpend {
  /** The stop once the budget is spent, else `null`. */
  stopVerdict: SpendVerdict | null = null;
  private guard: SpendGuard | undefined;
  private ready: Promise<void> | undefined;

  private constructor(
    private readonly options: SpendOptions,
    private readonly context: RunSpendContext,
  ) {}

  /**
   * The run's spend guard, or `undefined` when the options set no budget.
   * @throws ConfigurationError naming a bad spend option.
   */
  static of(options: SpendOptions | undefined, context: RunSpendContext): RunSpend | undefined {
    if (options === undefined) return undefined;
    const parsed = parseSpendOptions(options, 'spend option');
    return spendGuardOn(parsed) ? new RunSpend(parsed, context) : undefined;
  }

  /** Counts one step's usage; a promise while the pricing library loads, else `undefined`. */
  observe(records: readonly UsageRecord[]): Promise<void> | undefined {
    if (this.ready === undefined && this.guard !== undefined) {
      this.judge(this.guard, records);
      return undefined;
    }
    // Every budget prices what it can (a token cap too: the entries show dollars), so the first
    // step waits for the library. One that cannot load leaves every model unpriced: counted in
    // tokens, its cost unknown.
    const previous =
      this.ready ??
      loadLibraryCost().then(
        (library) => {
          this.guard = this.guardWith(priceBook(this.options.prices, library));
        },
        () => {
          this.guard = this.guardWith(priceBook(this.options.prices));
        },
      );
    const next = previous.then(() => this.judge(this.guard as SpendGuard, records));
    this.ready = next;
    void next.finally(() => {
      if (this.ready === next) this.ready = undefined;
    });
    return next;
  }

  /** The run's caps (the `session` scope of the options), if any. */
  get caps(): { maxCostUsd?: number; maxTokens?: number } | undefined {
    return this.options.session;
  }

  /** What the run has spent so far (`undefined` before the pricing library loaded). */
  get spent(): SpendTotals | undefined {
    return this.guard?.run.totals;
  }

  private guardWith(costOf: CostOf): SpendGuard {
    return new SpendGuard(this.options, costOf, 'this run');
  }

  private judge(guard: SpendGuard, records: readonly UsageRecord[]): void {
    if (this.stopVerdict !== null || records.length === 0) return;
    const now = this.context.clock.now();
    const verdict = guard.observe(records, now, this.context.taskId);
    if (verdict === undefined) return;
    const { taskId, runId } = this.context;
    this.context.record(
      spendEntry(verdict, {
        taskId: taskId ?? runId ?? 'run',
        detectedAt: now,
        metadata: { ...(runId === undefined ? {} : { runId }), toolCall: this.context.toolCalls() },
      }),
    );
    if (verdict.action === 'warn') this.context.warn(verdict.message);
    else this.stopVerdict = verdict;
  }
}
