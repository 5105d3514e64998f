import type { DemoScenario } from '../DemoContext.js';

/**
 * The policy cycles T5.1.1 -> T5.1.2 -> T5.1.3 and each reports the same thing every round.
 * No task alone looks stuck, but after three rounds the cycle is caught and all three escalate.
 */
export const crossTaskCycle: DemoScenario = {
  title: 'Cross-task cycle: three tasks in turn, none progressing',
  tasks: [
    ['T5.1.1', 'Fix the build', 'in_progress'],
    ['T5.1.2', 'Update the lockfile', 'in_progress'],
    ['T5.1.3', 'Bump the compiler', 'in_progress'],
  ],
  async run(ctx) {
    const autopilot = ctx.autopilot();
    const order = ['T5.1.1', 'T5.1.2', 'T5.1.3'];
    for (let i = 0; i < 12; i++) {
      const taskId = order[i % order.length] as string;
      const note = `Looked at ${taskId}, deferred it`;
      const result = await autopilot.tick(
        taskId,
        { status: 'in_progress', completedWork: [note], blockers: [] },
        note,
      );
      if (result.details.loopRecoveryApplied) break;
    }
    const statuses = order.map((id) => `${id} ${ctx.database.stateMachine.getTask(id)?.status}`);
    ctx.print(`   ${statuses.join(', ')}`);
  },
};
