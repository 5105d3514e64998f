import { describe, expect, it } from 'vitest';
import { ADVICE, stepLoopMessage } from '../../src/steps/stepLoopMessage.js';

// The nudge is what the model reads, and the user in the transcript: tool calls and actions, never
// loopguard's "steps" (decisions.md, docs52).
describe('the text of a nudge and of a stop', () => {
  it.each(Object.keys(ADVICE) as (keyof typeof ADVICE)[])('%s: never says "step"', (loopType) => {
    const hit = {
      loopType,
      repeats: 3,
      since: 4,
      summary: 'the same action returned the same result 3 times',
      evidence: [4, 6, 8].map((step) => ({ step, call: step / 2, action: 'npm test', output: 'FAIL' })),
    };
    for (const rung of ['nudge', 'stop'] as const)
      expect(stepLoopMessage(rung, hit)).not.toMatch(/\bsteps?\b/i);
  });
});
