import type { DemoScenario } from '../DemoContext.js';

/** Seed 000: an iteration session whose validation fails three times in a row trips the circuit breaker guard. */
export const guardTrip: DemoScenario = {
  title: 'Guard trip: three failed validations in a row open the circuit breaker',
  tasks: [['T8.2.1', 'Flaky integration test', 'pending']],
  async run(ctx) {
    const { session } = ctx.sessions.startIteration('T8.2.1', {
      maxIterations: 10,
      completionPromises: ['All tests pass'],
    });
    for (let i = 1; ; i++) {
      const next = ctx.sessions.nextIteration(session.id);
      if (!next.ok) {
        ctx.print(
          `   Iteration ${next.checkpoint.iterationNumber}: BLOCKED by ${next.blockedBy} - ${next.error}`,
        );
        break;
      }
      ctx.clock.advance(60_000);
      ctx.sessions.recordValidation(session.id, { passed: false }, { output: 'FAIL test/api.test.ts' });
      ctx.print(`   Iteration ${i}: validation failed`);
      await ctx.pause();
    }
    const task = ctx.database.stateMachine.getTask('T8.2.1');
    ctx.print(`   T8.2.1 is now ${task?.status}: ${task?.blockedReason}`);
  },
};
