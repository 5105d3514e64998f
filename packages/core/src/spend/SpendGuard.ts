import { addUsage, checkSpend, type SpendScope, type SpendVerdict } from './checkSpend.js';
import type { CostOf } from './priceBook.js';
import { SpendLedger } from './SpendLedger.js';
import { parseSpendOptions, type ResolvedSpendOptions, type SpendOptions } from './spendOptions.js';
import type { UsageRecord } from './usageRecord.js';

/**
 * The spend guard of one process's run: a ledger for the run (the `session` budget and the burn
 * rate) and one per task (the `task` budget), kept in memory. `loopguard run`, the framework
 * adapters and the orchestrator feed it the usage they see; each decides how to warn and stop.
 * @example
 * const guard = new SpendGuard({ session: { maxCostUsd: 5 } }, priceBook({}, await loadLibraryCost()));
 * const verdict = guard.observe([usage], Date.now(), 'T1');
 * if (verdict?.action === 'stop') abort(verdict.message);
 */
export class SpendGuard {
  /** The validated options. */
  readonly options: ResolvedSpendOptions;
  /** What the whole run has spent. */
  readonly run = new SpendLedger();
  private readonly tasks = new Map<string, SpendLedger>();

  /**
   * @param options - the spend options: validated here, unless they are what `parseSpendOptions` returned
   *   (an adapter's, checked at its own edge: not parsed twice).
   * @param costOf - the price book.
   * @param label - how messages name the run: `this run`, `this session`.
   * @throws ConfigurationError naming the option.
   */
  constructor(
    options: SpendOptions,
    private readonly costOf: CostOf,
    private readonly label = 'this run',
  ) {
    this.options = parseSpendOptions(options, 'spend options');
  }

  /** What `taskId` has spent over every run of this guard (`undefined` before its first reply). */
  task(taskId: string): SpendLedger | undefined {
    return this.tasks.get(taskId);
  }

  /**
   * Counts `records` (each reply id once) for the run and, with `taskId`, for the task; then judges
   * the budgets.
   * @param now - epoch ms (the time of records that carry none, and of the burn rate).
   * @returns a warning (given once) or a stop, or `undefined` to go on.
   */
  observe(records: readonly UsageRecord[], now: number, taskId?: string): SpendVerdict | undefined {
    const scopes: SpendScope[] = [{ kind: 'session', label: this.label, ledger: this.run }];
    if (taskId !== undefined) {
      let ledger = this.tasks.get(taskId);
      if (ledger === undefined) {
        ledger = new SpendLedger();
        this.tasks.set(taskId, ledger);
      }
      scopes.push({ kind: 'task', label: `task ${taskId}`, ledger });
    }
    for (const record of records) addUsage(scopes, record, this.costOf, now);
    return checkSpend(scopes, this.options, now);
  }
}
