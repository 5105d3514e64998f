import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Step, StepLoopDetector, type StepVerdict } from '../../src/entries/steps.js';

/** A few commands and results, so that random sessions repeat themselves and loops happen. */
const COMMANDS = [
  'cat missing.txt',
  'grep -rn "loadConfig" .',
  'grep -rn "load_config" .',
  'cd /repo && python reproduce.py',
  'python reproduce.py',
  'pytest tests/test_a.py',
  'sed -i "s/a/b/" src/a.py',
  'sleep 5',
  'ls',
];
const OUTPUTS = ['', 'No matches found', 'AssertionError: expected 2, got 3', 'ok', 'Traceback: KeyError: x'];
const SHELLS = ['Bash', 'run_shell_command', 'execute_bash', 'shell', 'exec_command'];

const turnArb = fc.record({
  tool: fc.constantFrom(...SHELLS),
  command: fc.constantFrom(...COMMANDS),
  output: fc.constantFrom(...OUTPUTS),
  error: fc.boolean(),
  description: fc.string({ maxLength: 30 }),
  timeout: fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: undefined }),
  argv: fc.boolean(),
  message: fc.option(fc.constantFrom('Let me try again.', 'Done.'), { freq: 5, nil: undefined }),
  // Agents retry: a call is often made again right away, so that sessions loop.
  times: fc.integer({ min: 1, max: 3 }),
});
type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;

/** The session as steps, each shell call's input as the string or as an object of the agent's shape. */
function stepsOf(turns: Turn[], asObject: boolean): Step[] {
  return turns
    .flatMap((t) => Array.from({ length: t.times }, () => t))
    .flatMap((t) => {
      const input = !asObject
        ? t.command
        : t.tool === 'exec_command'
          ? { cmd: t.command, workdir: '/repo', yield_time_ms: t.timeout }
          : {
              command: t.argv ? ['bash', '-lc', t.command] : t.command,
              description: t.description,
              ...(t.timeout === undefined ? {} : { timeout: t.timeout }),
            };
      const steps: Step[] = t.message === undefined ? [] : [{ type: 'message', text: t.message }];
      steps.push({ type: 'action', tool: t.tool, input });
      steps.push({
        type: 'observation',
        tool: t.tool,
        output: t.output,
        ...(t.error ? { error: true } : {}),
      });
      return steps;
    });
}

const verdicts = (steps: Step[]) => {
  const detector = new StepLoopDetector();
  return steps.map((step) => {
    const v: StepVerdict = detector.observe(step);
    return { action: v.action, loopType: v.loopType, step: v.step, message: v.message, evidence: v.evidence };
  });
};

describe('one verdict whatever the input shape (property)', () => {
  it('a random session gives identical verdicts with its shell calls as strings or as {command} objects', () => {
    let judged = 0;
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 40 }), (turns) => {
        const asString = verdicts(stepsOf(turns, false));
        expect(verdicts(stepsOf(turns, true))).toEqual(asString);
        if (asString.some((v) => v.action !== 'continue')) judged++;
      }),
      { numRuns: 200 },
    );
    // the sessions repeat themselves enough that many of them are nudged or stopped
    expect(judged).toBeGreaterThan(20);
  });
});
