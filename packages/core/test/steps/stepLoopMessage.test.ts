import { describe, expect, it } from 'vitest';
import type { RuleHit } from '../../src/steps/rules/StepRule.js';
import { StepLoopDetector } from '../../src/steps/StepLoopDetector.js';
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

// qa53: the real CLIs hand a failing command's output with its line breaks (Codex ends it with one,
// Claude Code puts `Exit code 1` on a line of its own): each evidence stays one line of the message.
describe('stepLoopMessage', () => {
  const failure = (call: number, output: string) => ({
    step: call * 2 - 1,
    call,
    tool: 'Bash',
    action: 'cat missing.txt',
    output,
    error: true,
  });
  const hit = (outputs: string[]): RuleHit => ({
    loopType: 'same_error',
    repeats: outputs.length,
    since: 1,
    evidence: outputs.map((output, i) => failure(i + 1, output)),
    summary: `the same action failed with the same error ${outputs.length} times`,
  });

  it.each([
    ['Codex (a trailing line break)', 'cat: missing.txt: No such file or directory\n'],
    [
      'Claude Code (its exit code on a line of its own)',
      'Exit code 1\ncat: missing.txt: No such file or directory',
    ],
  ])('%s: each evidence is one line, its output on it', (_, output) => {
    const lines = stepLoopMessage('nudge', hit([output, output, output])).split('\n');
    expect(lines).toEqual([
      'Loop detected (same_error): the same action failed with the same error 3 times, since call 1.',
      'Repeating:',
      expect.stringMatching(
        /^- call 3: `cat missing\.txt` → error "(Exit code 1 )?cat: missing\.txt: No such file or directory"$/,
      ),
      expect.stringMatching(/^Retrying gives the same failure/),
    ]);
  });

  it('a command written over several lines is one line of evidence', () => {
    const evidence = { ...failure(1, 'boom'), action: "cat <<'EOF' > a.txt\nhello\nEOF" };
    const message = stepLoopMessage('stop', { ...hit(['boom']), evidence: [evidence] });
    expect(message.split('\n')[2]).toBe('- call 1: `cat <<\'EOF\' > a.txt hello EOF` → error "boom"');
  });
});

// story56: a call the command hook judges before it runs gave no output; the stop tells the model
// that call was refused, quoting only the calls that ran, as `status` counts them.
describe('StepLoopDetector.foresee', () => {
  it('words a stop before the call as a refusal, quoting only the calls that ran', () => {
    const detector = new StepLoopDetector();
    const fail = 'cat: missing.txt: No such file or directory';
    let nudged = 0;
    for (let call = 1; nudged === 0 && call <= 8; call++) {
      detector.observe({ type: 'action', tool: 'bash', input: 'cat missing.txt' });
      const verdict = detector.observe({ type: 'observation', tool: 'bash', output: fail, error: true });
      if (verdict.action === 'nudge') nudged = call;
    }
    expect(nudged).toBeGreaterThan(0);
    const stop = detector.foresee('bash', 'cat missing.txt', fail, true);
    expect(stop).toMatchObject({ action: 'stop', toolCall: nudged + 1 });
    expect(stop.message).toMatch(
      new RegExp(
        `^Stopped \\(same_error\\): call ${nudged + 1} was refused before it ran: it repeats call ${nudged}, with nothing changed since`,
      ),
    );
    expect(stop.message).not.toContain(`call ${nudged + 1}: `);
    expect(stop.evidence.map((e) => e.call)).not.toContain(nudged + 1);
  });
});
