import type { Clock, StateMachine } from '@loopguard/core';
import {
  type CostOf,
  loadLibraryCost,
  parseSpendOptions,
  priceBook,
  SpendGuard,
  type SpendOptions,
  type SpendVerdict,
  spendEntry,
  spendGuardOn,
  type UsageRecord,
  usageRecordOf,
} from '@loopguard/core/spend';
import type { UsageReport } from './ports.js';

/**
 * The orchestrator's spend guard: the usage each executor reports with an attempt, counted for the
 * loop's whole run (`session`) and per task (`task`, beside the detector's per-task attempt
 * budget). A warning is a `spend_warning` entry for the task (the executor reads it from the shared
 * context); a stop is a `spend_stop` entry; a task over its budget is blocked with the message as the
 * reason, the way an escalation blocks a looping task, and a stop of the run's budget stops the loop.
 */
export class OrchestratorSpend {
  private readonly guard: SpendGuard;

  /**
   * @param options - the `spend` option of the loop (validated here).
   * @param costOf - the price book (overrides, then the pricing library).
   * @throws ConfigurationError naming a bad spend option.
   */
  constructor(
    options: SpendOptions,
    costOf: CostOf,
    private readonly stateMachine: StateMachine | undefined,
    private readonly clock: Clock,
  ) {
    this.guard = new SpendGuard(options, costOf, 'this orchestrator run');
  }

  /** The stop that keeps `taskId` from running again (its budget or the run's is spent), else `undefined`. */
  exhausted(taskId: string): SpendVerdict | undefined {
    const verdict = this.guard.observe([], this.clock.now(), taskId);
    return verdict?.action === 'stop' ? verdict : undefined;
  }

  /**
   * Counts the usage an executor reported with an attempt (bad counts as 0, each id once) and
   * records the warning or stop it leads to.
   */
  observe(
    taskId: string,
    usage: readonly UsageReport[] | undefined,
    sessionId: string,
  ): SpendVerdict | undefined {
    const now = this.clock.now();
    const records: UsageRecord[] = (usage ?? []).map((u) => usageRecordOf({ ...u, replyId: u.id, at: now }));
    const verdict = this.guard.observe(records, now, taskId);
    if (verdict === undefined) return undefined;
    this.stateMachine?.addContextEntry(
      spendEntry(verdict, { taskId, detectedAt: now, metadata: { sessionId } }),
    );
    // A task over its budget is blocked like an escalated one (when the state machine has it); the
    // run's own budget stops the loop instead (the caller), leaving the task as it is.
    if (
      verdict.action === 'stop' &&
      verdict.scope === 'task' &&
      this.stateMachine?.getTask(taskId) !== undefined
    )
      this.stateMachine.transition(taskId, 'blocked', verdict.message);
    return verdict;
  }
}

/**
 * The loop's spend guard once the pricing library is loaded, or `undefined` when `options` set no
 * budget. The options are validated at once (the loop's constructor throws on a bad one).
 * @throws ConfigurationError naming a bad spend option.
 */
export function loadOrchestratorSpend(
  options: SpendOptions | undefined,
  stateMachine: StateMachine | undefined,
  clock: Clock,
): Promise<OrchestratorSpend> | undefined {
  if (options === undefined) return undefined;
  const parsed = parseSpendOptions(options, 'OrchestratorLoop options: spend');
  if (!spendGuardOn(parsed)) return undefined;
  return loadLibraryCost().then(
    (library) => new OrchestratorSpend(parsed, priceBook(parsed.prices, library), stateMachine, clock),
  );
}
