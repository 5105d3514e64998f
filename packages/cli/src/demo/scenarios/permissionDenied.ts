import { StagnationBreaker } from '@loopguard/core/breaker';
import { SqliteRunStore } from '@loopguard/sqlite';
import type { DemoScenario } from '../DemoContext.js';

/** An agent whose shell calls are denied a permission: busy, but it cannot progress; the breaker opens naming the tool. */
export const permissionDenied: DemoScenario = {
  title: 'Permission denied: an agent whose Bash calls are denied opens the breaker after 2 iterations',
  tasks: [],
  async run(ctx) {
    const runs = new SqliteRunStore({ db: ctx.database.db, clock: ctx.clock });
    const run = runs.createRun({
      id: 'demo-run-0',
      command: ['claude', '-p'],
      options: {},
      cwd: ctx.workDir,
    });
    const breaker = new StagnationBreaker({ runId: run.id, clock: ctx.clock });
    breaker.on('breakerStateChanged', (transition) => runs.appendTransition(transition));
    ctx.watch(breaker);
    for (let iteration = 1; iteration <= 3; iteration++) {
      ctx.clock.advance(60_000);
      // what `loopguard run` reads from Claude Code's result: `permission_denials: [{ tool_name: 'Bash' }]`
      const verdict = breaker.record({ iteration, filesChanged: 1, permissionDenials: ['Bash'] });
      runs.updateRun(run.id, { iteration, breakerState: verdict.state, breaker: breaker.snapshot() });
      ctx.print(`   Iteration ${iteration}: a file edited, the Bash call denied - breaker ${verdict.state}`);
      await ctx.pause();
      if (verdict.tripped) {
        ctx.print(`   Breaker OPEN: ${verdict.reason}`);
        runs.updateRun(run.id, { status: 'paused', reason: verdict.reason ?? 'stagnation' });
        break;
      }
    }
  },
};
