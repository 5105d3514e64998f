import type { DemoScenario } from '../DemoContext.js';

/** Seed 002, pattern 2: the same blocker every time; unblock authority, then escalation when it persists. */
export const blockedTaskSpin: DemoScenario = {
  title: 'Blocked task spin: the same blocker every time',
  tasks: [['T3.4.3', 'Design-system review', 'in_progress']],
  async run(ctx) {
    const blockers = ['critic:design_system unavailable'];
    for (let i = 0; i < 4; i++)
      if (!(await ctx.pick('T3.4.3', 'blocked', blockers, [], 'Waiting for the design-system critic'))) break;
    ctx.print('   ...the autopilot got unblock authority, but spins on the same blocker again:');
    for (let i = 0; i < 4; i++)
      if (!(await ctx.pick('T3.4.3', 'blocked', blockers, [], 'Still waiting for the critic'))) break;
    const task = ctx.database.stateMachine.getTask('T3.4.3');
    ctx.print(`   T3.4.3 is now ${task?.status}: ${task?.blockedReason}`);
  },
};
