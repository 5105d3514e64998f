import {
  formatUsd,
  loadLibraryCost,
  priceBook,
  SpendGuard,
  spendEntry,
  usageRecordOf,
} from '@loopguard/core/spend';
import type { DemoScenario } from '../DemoContext.js';

/** The session's id in the entries (a session, not a task of the demo's task list). */
const TASK = 'claude:demo-spend-session';

/**
 * The spend guard: a session on claude-sonnet-4-5 that makes progress but costs too much, priced
 * reply by reply from the pricing library, warned at 80 % of its $0.50 budget and stopped at the cap
 * (both recorded as context entries, on the recoveries page). Each reply is reported twice (Claude
 * Code writes one record per content block) and counted once.
 */
export const spendBudget: DemoScenario = {
  title: 'Spend guard: a session warned at 80 % of its $0.50 budget, then stopped at the cap',
  tasks: [],
  async run(ctx) {
    const guard = new SpendGuard(
      { session: { maxCostUsd: 0.5 } },
      priceBook({}, await loadLibraryCost()),
      'this session',
    );
    for (let i = 1; i <= 50; i++) {
      ctx.clock.advance(20_000);
      const reply = usageRecordOf({
        replyId: `msg_${i}`,
        model: 'claude-sonnet-4-5',
        inputTokens: 3_000,
        cacheReadTokens: 60_000,
        outputTokens: 900,
        at: ctx.clock.now(),
      });
      const verdict = guard.observe([reply, reply], ctx.clock.now(), TASK);
      if (verdict === undefined) continue;
      ctx.database.stateMachine.addContextEntry(
        spendEntry(verdict, { taskId: TASK, detectedAt: ctx.clock.now() }),
      );
      const { costUsd, replies } = guard.run.totals;
      ctx.print(
        `   Reply ${i}: ${verdict.action.toUpperCase()} (${formatUsd(costUsd)} after ${replies} replies): ${verdict.message}`,
      );
      await ctx.pause();
      if (verdict.action === 'stop') break;
    }
  },
};
