import type { DemoScenario } from '../DemoContext.js';

/**
 * Without auto-unblock the same blocker escalates; the escalated task is skipped by every
 * tick (and stays blocked) until a person resolves the escalation; the next tick runs it again.
 */
export const escalationSticks: DemoScenario = {
  title: 'Escalation sticks: an escalated task waits for a person',
  tasks: [['T6.2.3', 'Payments API client', 'in_progress']],
  async run(ctx) {
    const autopilot = ctx.autopilot({ enableAutoUnblock: false });
    const blocked = { status: 'blocked' as const, completedWork: [], blockers: ['missing auth token'] };
    for (let i = 0; i < 4; i++) {
      const result = await autopilot.tick('T6.2.3', blocked, 'Missing auth token');
      if (result.details.loopRecoveryApplied) break;
    }
    for (let i = 0; i < 2; i++) await autopilot.tick('T6.2.3', blocked, 'Missing auth token');
    ctx.print(`   T6.2.3 is still ${ctx.database.stateMachine.getTask('T6.2.3')?.status}`);
    const { task } = autopilot.detector.resolveEscalation('T6.2.3', {
      note: 'Rotated the token',
      by: 'alice',
    });
    ctx.print(`   alice resolved the escalation ("Rotated the token"); T6.2.3 is ${task?.status}`);
    await autopilot.tick(
      'T6.2.3',
      { status: 'in_progress', completedWork: ['Called the API with the new token'], blockers: [] },
      'Called the API with the new token',
    );
  },
};
