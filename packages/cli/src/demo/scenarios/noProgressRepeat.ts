import type { DemoScenario } from '../DemoContext.js';

/**
 * Seed 002, pattern 3, through ticks: the agent reports the same work every tick. The detector does
 * not escalate at three attempts; after five recorded attempts tick 6 gives force_next.
 */
export const noProgressRepeat: DemoScenario = {
  title: 'No progress repeat: the same work every tick until force_next',
  tasks: [['T7.1.2', 'Config loader', 'in_progress']],
  async run(ctx) {
    const report = {
      status: 'in_progress' as const,
      completedWork: ['Read file A', 'Parse config'],
      blockers: [],
    };
    for (let i = 0; i < 6; i++) {
      const result = await ctx.tick('T7.1.2', report, 'Read file A, parsed config');
      if (result.details.loopRecoveryApplied) break;
    }
    const task = ctx.database.stateMachine.getTask('T7.1.2');
    ctx.print(`   T7.1.2 is now ${task?.status}; the autopilot moves on to the next task`);
  },
};
