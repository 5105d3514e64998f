import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { isFramingOnly } from '../../src/steps/history/framingLines.js';
import { claudeToolResponseText } from '../../src/translation/claudeCode/claudeCodeSteps.js';
import { makeStepDetector, turn } from './helpers.js';

/** What each agent hands the model for a shell command that printed nothing and succeeded. */
const SILENT: Record<string, string> = {
  'Gemini CLI, Codex, the corpora': '',
  'Claude Code': '(Bash completed with no output)',
  OpenHands:
    '\n[The command completed with exit code 0.]\n[Current working directory: /workspace/repo]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 0]',
  'SWE-agent 1.x': 'Your command ran successfully and did not produce any output.',
  'SWE-agent 0.x':
    'Your command ran successfully and did not produce any output.\n(Open file: /repo/src/main.py)\n(Current directory: /repo)\nbash-$',
  "OpenHands' IPython cell":
    '[Code executed successfully with no output]\n[Jupyter current working directory: /workspace/repo]\n[Jupyter Python interpreter: /usr/bin/python]',
};

const SHAPES = {
  'command strings': (command: string) => command,
  'argument objects': (command: string) => ({ command }),
};

const FAILURE = 'cat: missing.txt: No such file or directory';

/** Every verdict's action and rule, and the tool call it falls on, for `steps`. */
function verdicts(steps: Step[]): string[] {
  const { detector } = makeStepDetector();
  return steps.map((step) => {
    const verdict = detector.observe(step);
    return `${verdict.action}/${verdict.loopType ?? ''}@${verdict.toolCall}`;
  });
}

/** A write, three identical failures, a second write (`fix`, or the first again), the failure again. */
function script(shape: (command: string) => unknown, silent: string, fix: string): Step[] {
  return [
    ...turn(shape('echo one > one.txt'), silent),
    ...turn(shape('cat missing.txt'), FAILURE, { error: true }),
    ...turn(shape('cat missing.txt'), FAILURE, { error: true }),
    ...turn(shape('cat missing.txt'), FAILURE, { error: true }),
    ...turn(shape(fix), silent),
    ...turn(shape('cat missing.txt'), FAILURE, { error: true }),
  ];
}

describe('a silent success is what the command did, not how the agent frames it', () => {
  for (const [shapeName, shape] of Object.entries(SHAPES)) {
    it(`a new silent write is an effect under every agent's framing (${shapeName})`, () => {
      const expected = verdicts(script(shape, '', 'echo fix > fix.txt'));
      // the new write is news: the failure after it starts again (nudged before it, no stop)
      expect(expected.filter((v) => v.startsWith('stop'))).toEqual([]);
      expect(expected.some((v) => v.startsWith('nudge'))).toBe(true);
      for (const [agent, silent] of Object.entries(SILENT))
        expect(verdicts(script(shape, silent, 'echo fix > fix.txt')), agent).toEqual(expected);
    });

    it(`the same silent write again is no news under any framing: the failure after it stops (${shapeName})`, () => {
      const expected = verdicts(script(shape, '', 'echo one > one.txt'));
      expect(expected.at(-1)).toBe('stop/same_error@6');
      for (const [agent, silent] of Object.entries(SILENT))
        expect(verdicts(script(shape, silent, 'echo one > one.txt')), agent).toEqual(expected);
    });
  }

  it('framing beside a line the command printed is not silent', () => {
    for (const framed of [
      'one line\n[The command completed with exit code 0.]\n[Current working directory: /w]',
      'x (Bash completed with no output)',
      '[Current working directory: /w]\nreal output',
      '(Bash completed with no output)\n(Bash completed with no output)2',
      'Your command ran successfully.',
      'Yes\n(Open file: /repo/a.py)',
      'total 0\n(Open file: n/a)\n(Current directory: /repo)\nbash-$',
      '42\n[Jupyter current working directory: /w]\n[Jupyter Python interpreter: /usr/bin/python]',
    ])
      expect(isFramingOnly(framed), framed).toBe(false);
    for (const framing of [...Object.values(SILENT), '\n', '  \n\r\n', '[Command finished with exit code 0]'])
      expect(isFramingOnly(framing), JSON.stringify(framing)).toBe(true);
  });

  it("Claude Code's translation of an empty Bash result is framing (one list, no drift)", () => {
    expect(isFramingOnly(claudeToolResponseText({ stdout: '', stderr: '' }))).toBe(true);
    expect(isFramingOnly(claudeToolResponseText({ stdout: 'ok', stderr: '' }))).toBe(false);
  });
});
