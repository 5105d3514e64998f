import { type Step, StepLoopDetector } from '@loopguard/core/steps';
import type { DemoScenario } from '../DemoContext.js';
import { verdictWords } from '../verdictWords.js';

const TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/workspace/reproduce.py", line 4, in <module>',
  '  File "/srv/app/shapes/render/text.py", line 120, in render_difference',
  "AssertionError: expected 'a - b', got 'a + (-1)*b'",
].join('\n');

const RUN: Step = {
  type: 'action',
  tool: 'execute_bash',
  input: { command: 'python /workspace/reproduce.py' },
};
const RESULT: Step = { type: 'observation', tool: 'execute_bash', output: TRACEBACK, error: true };

/**
 * Step level: outcome stagnation whose edits cannot take effect. The agent edits a new file of the
 * package each round (`/workspace/shapes/shapes/render/…`) and runs its script again; the traceback
 * runs another copy of the package (`/srv/app/shapes`). Every edit shows new text, so each turn looks
 * like work; `StepLoopDetector` judges the probe's result, nudges at the second round naming both
 * copies, and stops at the third.
 */
export const editsCannotTakeEffect: DemoScenario = {
  title: 'Inside one agent run: edits that cannot take effect (another copy of the package runs) are caught',
  tasks: [],
  async run(ctx) {
    const detector = new StepLoopDetector();
    detector.observe(RUN);
    detector.observe(RESULT);
    ctx.print('   Call 1: python /workspace/reproduce.py -> AssertionError (the bug, reproduced)');
    for (const file of ['svg/svg.py', 'latex.py', 'ascii.py']) {
      const path = `/workspace/shapes/shapes/render/${file}`;
      detector.observe({
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path, old_str: 'terms = []', new_str: 'terms = list()' },
      });
      detector.observe({
        type: 'observation',
        tool: 'str_replace_editor',
        output: `The file ${path} has been edited.`,
      });
      detector.observe(RUN);
      const verdict = detector.observe(RESULT);
      const seen = verdict.action === 'continue' ? 'the same AssertionError' : verdictWords(verdict);
      ctx.print(`   Calls ${verdict.toolCall - 1}-${verdict.toolCall}: edit ${file}, run again -> ${seen}`);
      if (verdict.action === 'nudge')
        ctx.print(`   ${verdict.message?.split('\n').find((l) => l.includes('runs from'))}`);
      await ctx.pause();
      if (verdict.action === 'stop') break;
    }
  },
};
