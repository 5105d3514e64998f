import { StagnationBreaker } from '@loopguard/core/breaker';
import { SqliteRunStore } from '@loopguard/sqlite';
import type { DemoScenario } from '../DemoContext.js';

/** Seed 003: an agent command that changes no files and repeats one error opens the stagnation breaker. */
export const breakerTrip: DemoScenario = {
  title: 'Breaker trip: an agent command that changes nothing opens the stagnation breaker',
  tasks: [],
  async run(ctx) {
    const runs = new SqliteRunStore({ db: ctx.database.db, clock: ctx.clock });
    const run = runs.createRun({
      id: 'demo-run-1',
      command: ['my-agent', '--task', 'T9.9.9'],
      options: { stagnationThreshold: 3 },
      cwd: ctx.workDir, // the demo's own folder: every door names a run's project by it
    });
    const breaker = new StagnationBreaker({ runId: run.id, stagnationThreshold: 3, clock: ctx.clock });
    breaker.on('breakerStateChanged', (transition) => runs.appendTransition(transition));
    ctx.watch(breaker);
    for (let iteration = 1; iteration <= 5; iteration++) {
      ctx.clock.advance(60_000);
      const verdict = breaker.record({
        iteration,
        filesChanged: 0,
        output: 'Error: Cannot find module ./config',
      });
      runs.updateRun(run.id, { iteration, breakerState: verdict.state, breaker: breaker.snapshot() });
      ctx.print(`   Iteration ${iteration}: no files changed - breaker ${verdict.state}`);
      await ctx.pause();
      if (verdict.tripped) {
        ctx.print(`   Breaker OPEN: ${verdict.reason}`);
        runs.updateRun(run.id, { status: 'paused', reason: verdict.reason ?? 'stagnation' });
        break;
      }
    }
  },
};
