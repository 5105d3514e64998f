import type { DemoScenario } from '../DemoContext.js';

/** Seed 002, safety guarantee 1: ticks that complete different work each time are not a loop. */
export const activeWork: DemoScenario = {
  title: 'Active work: different work each tick is not a loop',
  tasks: [['T9.1.1', 'Search page', 'in_progress']],
  async run(ctx) {
    for (const work of [
      'Wrote the query parser',
      'Added result paging',
      'Styled the result list',
      'Added keyboard navigation',
      'Cached recent queries',
      'Wrote the end-to-end test',
    ]) {
      await ctx.tick('T9.1.1', { status: 'in_progress', completedWork: [work], blockers: [] }, work);
    }
    const loop = ctx.detector.detectLoop('T9.1.1');
    ctx.print(`   ${loop.attemptCount} attempts, looping: ${loop.isLooping}`);
  },
};
