import { messageWords } from '@loopguard/core/internal';
import { StepLoopDetector } from '@loopguard/core/steps';
import type { DemoScenario } from '../DemoContext.js';
import { verdictWords } from '../verdictWords.js';

const VIEW = [
  '[File: /repo/src/RowParser.java (120 lines total)]',
  '69:    if (row == null) {',
  '70:        return Optional.empty();',
  '71:    }',
].join('\n');

/**
 * Step level: an agent rewrites the same block at a shifted line range (`edit 71:71`, `edit 70:70`,
 * `edit 69:69`), the file view the same each time. No action repeats verbatim, yet nothing is
 * learned: `StepLoopDetector` nudges at the third near-duplicate and stops at the fourth.
 */
export const nearDuplicateRetry: DemoScenario = {
  title: 'Inside one agent run: near-duplicate retries (a shifted line range, the same result) are caught',
  tasks: [],
  async run(ctx) {
    const detector = new StepLoopDetector();
    for (const [i, line] of [71, 70, 69, 68].entries()) {
      detector.observe({
        type: 'message',
        text: 'The null check is still wrong, let me fix the block again.',
      });
      detector.observe({
        type: 'action',
        tool: 'edit',
        input: `edit ${line}:${line}\n    if (row == null) {\n        return Optional.empty();\n    }\nend_of_edit`,
      });
      const verdict = detector.observe({ type: 'observation', tool: 'edit', output: VIEW });
      const seen =
        verdict.action === 'continue'
          ? i === 0
            ? 'a new result'
            : 'the same view: nothing new learned'
          : verdictWords(verdict);
      ctx.print(`   Call ${verdict.toolCall}: edit ${line}:${line} -> ${seen}`);
      if (verdict.action === 'stop') ctx.print(`   ${messageWords(verdict.message?.split('\n')[0] ?? '')}`);
      await ctx.pause();
    }
  },
};
