import type { DemoScenario } from '../DemoContext.js';

/** Seed 002, pattern 2: the same blocker every tick; unblock authority, then escalation when it persists. */
export const blockedTaskSpin: DemoScenario = {
  title: 'Blocked task spin: the same blocker every time',
  tasks: [['T3.4.3', 'Design-system review', 'in_progress']],
  async run(ctx) {
    const report = {
      status: 'blocked' as const,
      completedWork: [],
      blockers: ['critic:design_system unavailable'],
    };
    for (let i = 0; i < 4; i++) {
      const result = await ctx.tick('T3.4.3', report, 'Waiting for the design-system critic');
      if (result.details.loopRecoveryApplied) break;
    }
    ctx.print('   ...the autopilot got unblock authority, but spins on the same blocker again:');
    for (let i = 0; i < 4; i++) {
      const result = await ctx.tick('T3.4.3', report, 'Still waiting for the critic');
      if (result.details.loopRecoveryApplied) break;
    }
    const task = ctx.database.stateMachine.getTask('T3.4.3');
    ctx.print(`   T3.4.3 is now ${task?.status}: ${task?.blockedReason}`);
  },
};
