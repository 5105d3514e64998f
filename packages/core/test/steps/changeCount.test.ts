import { describe, expect, it } from 'vitest';
import { type Step, StepLoopDetector } from '../../src/entries/steps.js';

/** `changeCount`: the tool calls that changed files, as the detector reads them (the hook's foresight reads it). */
describe('StepLoopDetector.changeCount', () => {
  const call = (tool: string, input: unknown, output = ''): Step[] => [
    { type: 'action', tool, input },
    { type: 'observation', tool, output },
  ];

  it.each([
    [
      'argument objects',
      [
        call('str_replace_editor', { command: 'view', path: '/r/a.py' }, '1\tx = 1'),
        call('execute_bash', { command: 'python run.py' }, 'failed'),
        call(
          'str_replace_editor',
          { command: 'str_replace', path: '/r/a.py', old_str: 'x = 1', new_str: 'x = 2' },
          'edited',
        ),
        call('execute_bash', { command: "sed -i 's/x/y/' /r/b.py" }),
      ],
    ],
    [
      'command strings',
      [
        call('bash', 'cat /r/a.py', 'x = 1'),
        call('bash', 'python run.py', 'failed'),
        call('bash', "sed -i 's/x = 1/x = 2/' /r/a.py"),
        call('bash', 'echo y > /r/b.py'),
      ],
    ],
  ])(
    '%s: a read and a run change nothing; an edit and a shell line that writes count one each',
    (_, calls) => {
      const detector = new StepLoopDetector();
      const counts = calls.map((steps) => {
        for (const step of steps) detector.observe(step);
        return detector.changeCount;
      });
      expect(counts).toEqual([0, 0, 1, 2]);
      // a restored detector goes on from the same count
      expect(StepLoopDetector.restore(JSON.parse(JSON.stringify(detector.snapshot()))).changeCount).toBe(2);
    },
  );
});
