import type { DemoScenario } from '../DemoContext.js';

/** Seed 002, pattern 3: five sessions with identical completed work; force_next at five attempts. */
export const noProgressRepeat: DemoScenario = {
  title: 'No progress repeat: five sessions, identical completed work',
  tasks: [['T7.1.2', 'Config loader', 'in_progress']],
  async run(ctx) {
    for (let i = 0; i < 5; i++) {
      ctx.detector.recordAttempt(
        'T7.1.2',
        'in_progress',
        [],
        ['Read file A', 'Parse config'],
        `session_t7_${i + 1}`,
      );
      ctx.clock.advance(60_000);
      await ctx.pause();
    }
    const loop = ctx.detector.detectLoop('T7.1.2');
    const outcome = await ctx.detector.applyRecovery(loop);
    ctx.print(`   ${loop.attemptCount} attempts -> ${outcome.applied ? outcome.action : 'nothing applied'}`);
  },
};
