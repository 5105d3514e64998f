import type { DemoScenario } from '../DemoContext.js';

/** Seed 002, pattern 1: the autopilot keeps picking a task that is done; force_next on tick 4. */
export const completedTaskRevisit: DemoScenario = {
  title: 'Completed task revisit: the autopilot keeps picking a task that is done',
  tasks: [['T3.4.2', 'Dashboard page', 'done']],
  async run(ctx) {
    for (const note of [
      'Checking if task complete...',
      'Verifying implementation...',
      'Running final checks...',
      'Re-reading requirements...',
    ]) {
      const result = await ctx.tick('T3.4.2', { status: 'done', completedWork: [note], blockers: [] }, note);
      if (result.details.loopRecoveryApplied) break;
    }
    const next = ctx.database.stateMachine.listTasks({ statuses: ['in_progress'] })[0];
    ctx.print(`Next task: ${next?.id} (fresh start)`);
  },
};
