/**
 * OpenHands' own stuck-detection suites, each case re-expressed in loopguard's step model: the
 * controller's `StuckDetector` (`tests/unit/controller/test_is_stuck.py` in All-Hands-AI/OpenHands)
 * and its successor in the agent SDK (`tests/cross/test_stuck_detector.py` in
 * OpenHands/software-agent-sdk). Written from the published behaviour: the history each case builds
 * and whether it expects the agent stuck, not the peer's code.
 *
 * From the peer's events to steps:
 * - A command, a file read or a Python cell is an `action` step (`bash` with the command, `read_file`
 *   with `{ path }`, `ipython` with the code); its result is the `observation` after it. An
 *   `ErrorObservation` (controller) or an `AgentErrorEvent` (SDK) is an observation with
 *   `error: true`; a Python cell's output is an ordinary result even when it shows a SyntaxError
 *   (the peer files it as a cell output, not an error).
 * - The thought attached to an action is a `message` step just before it; an agent's
 *   `MessageAction` / `MessageEvent` is a `message` step.
 * - A user message (and the empty `NullObservation` acknowledging it) is no step of the agent.
 *   Headless, the peer reads past it: one detector goes on. Interactive (the controller with
 *   `headless_mode=False`) and the SDK judge only what came after the last user message: a user
 *   message starts a new run, a fresh detector.
 * - A condensation event ("Trimming prompt to meet context window limitations") is the harness
 *   answering instead of running anything: an observation with no action before it, `error: true`.
 *
 * From the peer's verdicts to ours (checked where the peer calls `is_stuck`):
 * - Stuck there: loopguard must have nudged or stopped by then, in the current run. The peer would
 *   halt the agent; a nudge already tells it.
 * - Not stuck there: loopguard must not have stopped since the previous check (or the run's start).
 *   A nudge is allowed: the peer lets the agent go on, and so does a nudge.
 *
 * Left out: the controller's test that a delegate's stuck state is passed up (agent plumbing, no
 * history), two tests of a fork that only `assert True`, and the SDK's checks of which slice of the
 * event list it reads (the same histories are kept here as stuck cases).
 */
import { describe, expect, it } from 'vitest';
import type { Step, StepLoopDetector } from '../../../src/entries/steps.js';
import { makeStepDetector } from '../helpers.js';
import { expectNoStop, firstDetection, firstStop, formatTrace, type PeerTrace } from './peerTrace.js';

type Check = 'stuck' | 'not stuck';
type Mode = 'headless' | 'interactive';

type OpenHandsEvent =
  | { kind: 'step'; step: Step }
  | { kind: 'user'; text: string }
  | { kind: 'check'; expect: Check; mode?: Mode };

const action = (tool: string, input: unknown): OpenHandsEvent => ({
  kind: 'step',
  step: { type: 'action', tool, input },
});
const result = (output: string, error = false): OpenHandsEvent => ({
  kind: 'step',
  step: { type: 'observation', output, ...(error ? { error: true } : {}) },
});
const agent = (text: string): OpenHandsEvent => ({ kind: 'step', step: { type: 'message', text } });
const user = (text: string): OpenHandsEvent => ({ kind: 'user', text });
const check = (expected: Check, mode?: Mode): OpenHandsEvent =>
  mode === undefined ? { kind: 'check', expect: expected } : { kind: 'check', expect: expected, mode };
const cmd = (command: string, output: string, error = false) => [
  action('bash', command),
  result(output, error),
];
const read = (path: string, content: string) => [action('read_file', { path }), result(content)];
const ipython = (code: string, output: string) => [action('ipython', code), result(output)];
const condensation = () => result('Trimming prompt to meet context window limitations', true);
const repeat = <T>(count: number, make: (index: number) => T[]): T[] =>
  Array.from({ length: count }, (_, index) => make(index)).flat();

function label(event: OpenHandsEvent): string {
  if (event.kind === 'user') return `user ${JSON.stringify(event.text)}`;
  if (event.kind === 'check') return `check: ${event.expect}`;
  const { step } = event;
  if (step.type === 'action') return `${step.tool} ${JSON.stringify(step.input).slice(0, 60)}`;
  if (step.type === 'message') return `message ${JSON.stringify(step.text)}`;
  return `${step.error ? 'error' : 'output'} ${JSON.stringify(step.output.slice(0, 50))}`;
}

interface CheckResult {
  expected: Check;
  mode: Mode;
  passed: boolean;
}

/** Feeds a case to loopguard in one mode and judges each of the peer's checks in that mode. */
function judge(events: readonly OpenHandsEvent[], mode: Mode): { trace: PeerTrace; checks: CheckResult[] } {
  let detector: StepLoopDetector = makeStepDetector().detector;
  const trace: PeerTrace = [];
  const checks: CheckResult[] = [];
  let runStart = 0;
  let since = 0;
  for (const event of events) {
    if (event.kind === 'check') {
      if ((event.mode ?? mode) !== mode) continue;
      const window = event.expect === 'stuck' ? trace.slice(runStart) : trace.slice(since);
      const verdicts = window.flatMap((traced) => traced.verdicts);
      const passed =
        event.expect === 'stuck'
          ? verdicts.some((verdict) => verdict.action !== 'continue')
          : verdicts.every((verdict) => verdict.action !== 'stop');
      checks.push({ expected: event.expect, mode, passed });
      trace.push({ label: `${label(event)} (${mode}) ${passed ? 'ok' : 'FAILS'}`, verdicts: [] });
      since = trace.length;
      continue;
    }
    if (event.kind === 'user') {
      if (mode === 'interactive') {
        detector = makeStepDetector().detector;
        runStart = trace.length + 1;
        since = runStart;
      }
      trace.push({ label: label(event), verdicts: [] });
      continue;
    }
    trace.push({ label: label(event), verdicts: [detector.observe(event.step)] });
  }
  return { trace, checks };
}

/** Runs a case in every mode its checks name and expects each check to hold. */
function expectPeerChecks(events: readonly OpenHandsEvent[], defaultMode: Mode = 'headless'): void {
  const modes = new Set<Mode>([defaultMode]);
  for (const event of events) if (event.kind === 'check' && event.mode !== undefined) modes.add(event.mode);
  for (const mode of modes) {
    const { trace, checks } = judge(events, mode);
    expect(checks.length, `no check in ${mode} mode`).toBeGreaterThan(0);
    expect(
      checks.every((result) => result.passed),
      `loopguard's verdicts (${mode}):\n${formatTrace(trace)}`,
    ).toBe(true);
  }
}

/** loopguard's verdicts for each event, judged as the SDK does (what follows the last user message). */
const tracePeer = (events: readonly OpenHandsEvent[]): PeerTrace => judge(events, 'interactive').trace;

describe("OpenHands controller's StuckDetector suite", () => {
  const files = 'file1.txt\nfile2.txt';
  const snippet =
    '\nedit_file_by_replace(\n    \'book_store.py\',\n    to_replace="""def total(basket):\n    if not basket:\n        return 0\n';
  const jupyter = '\n[Jupyter current working directory:\n[Jupyter Python interpreter:';
  const syntaxError = (message: string, incidents: number, randomLine: boolean) =>
    repeat(incidents, (i) =>
      ipython(
        snippet,
        `  Cell In[1], line ${randomLine ? (i + 1) * 10 : 42}\n` +
          'to_replace="""def largest(min_factor, max_factor):\n            ^\n' +
          `${message}${randomLine ? '\n'.repeat(i + 1) : ''}${jupyter}`,
      ),
    );
  const unterminated = (incidents: number, randomLine: boolean) =>
    repeat(incidents, (i) => {
      const line = randomLine ? (i + 1) * 10 : 1;
      return ipython(
        snippet,
        `print("  Cell In[1], line ${line}\nhello\n       ^\n` +
          `SyntaxError: unterminated string literal (detected at line ${line})${jupyter}`,
      );
    });
  const invalidSyntax = 'SyntaxError: invalid syntax. Perhaps you forgot a comma?';

  it('one command after the user message is not stuck', () => {
    expectPeerChecks([user('Hello'), ...cmd('ls', files), check('not stuck')]);
  });

  it('interactive mode judges only what follows the last user message', () => {
    expectPeerChecks([
      ...repeat(4, () => cmd('ls', '')),
      check('stuck', 'headless'),
      check('stuck', 'interactive'),
      user('Hello'),
      check('not stuck', 'interactive'),
      check('stuck', 'headless'),
      ...repeat(2, () => cmd('ls', '')),
      check('not stuck', 'interactive'),
      ...repeat(2, () => cmd('ls', '')),
      check('stuck', 'interactive'),
    ]);
  });

  it('the same command with the same (empty) output four times is stuck, not before', () => {
    expectPeerChecks([
      user('Hello'),
      ...cmd('ls', ''),
      ...cmd('ls', ''),
      user('Done'),
      check('not stuck'),
      ...cmd('ls', ''),
      check('not stuck'),
      ...cmd('ls', ''),
      check('stuck'),
    ]);
  });

  it('the same command failing four times, with differing error texts, is stuck', () => {
    expectPeerChecks([
      user('Hello'),
      ...cmd('invalid_command', 'Command not found', true),
      ...cmd('invalid_command', 'Command still not found or another error', true),
      user('Done'),
      ...cmd('invalid_command', 'Different error', true),
      ...cmd('invalid_command', 'Command not found', true),
      check('stuck'),
    ]);
  });

  it('the same cell with the same invalid-syntax error four times is stuck', () => {
    expectPeerChecks([...syntaxError(invalidSyntax, 4, false), check('stuck')]);
  });

  it('the same cell with an invalid-syntax error at a different line each time is not stuck', () => {
    expectPeerChecks([...syntaxError(invalidSyntax, 4, true), check('not stuck')]);
  });

  it('three invalid-syntax errors at different lines are not stuck', () => {
    expectPeerChecks([...syntaxError(invalidSyntax, 3, true), check('not stuck')]);
  });

  it('the same cell with the same incomplete-input error four times is stuck', () => {
    expectPeerChecks([...syntaxError('SyntaxError: incomplete input', 4, false), check('stuck')]);
  });

  it('incomplete-input errors at a different line each time are not stuck', () => {
    expectPeerChecks([...syntaxError('SyntaxError: incomplete input', 4, true), check('not stuck')]);
  });

  it('unterminated-string errors at a different line each time are not stuck', () => {
    expectPeerChecks([...unterminated(4, true), check('not stuck')]);
  });

  it('two identical unterminated-string errors are not stuck', () => {
    expectPeerChecks([...unterminated(2, false), check('not stuck')]);
  });

  it('three identical unterminated-string errors are not stuck (an earlier version of the suite)', () => {
    expectPeerChecks([...unterminated(3, false), check('not stuck')]);
  });

  it('four identical unterminated-string errors are stuck', () => {
    expectPeerChecks([...unterminated(4, false), check('stuck')]);
  });

  it('a syntax error whose line and trailing output change each time is not stuck', () => {
    const tails = [
      ['1', 'This is some additional output'],
      ['1', 'Too much output here on and on'],
      ['3', 'Enough'],
      ['2', 'Last line of output'],
    ];
    const events = tails.flatMap(([line, tail]) =>
      ipython(
        'print("hello',
        `print("hello\n       ^\nSyntaxError: unterminated string literal (detected at line ${line})\n${tail}`,
      ),
    );
    expectPeerChecks([...events, check('not stuck')]);
  });

  it('a listing and a read alternating three times with the same results is stuck', () => {
    expectPeerChecks([
      user('Come on'),
      ...cmd('ls', files),
      ...read('file1.txt', 'File content'),
      ...cmd('ls', files),
      ...read('file1.txt', 'File content'),
      user('Come on'),
      ...cmd('ls', files),
      ...read('file1.txt', 'File content'),
      check('stuck'),
    ]);
  });

  it('varied commands and reads, two of them repeated once, are not stuck', () => {
    expectPeerChecks([
      user('Hello'),
      ...cmd('ls', files),
      ...read('file1.txt', 'File content'),
      ...cmd('pwd', '/home/user'),
      ...read('file2.txt', 'Another file content'),
      user('Done'),
      ...cmd('pwd', '/home/user'),
      ...read('file2.txt', 'Another file content'),
      check('not stuck'),
    ]);
  });

  it('the agent repeating one message three times is stuck; a result between the next two breaks it', () => {
    const reply = "I'm doing well, thanks for asking.";
    expectPeerChecks([
      user('Hi there!'),
      agent('Hi there!'),
      user('How are you?'),
      agent("I'm not stuck, he's stuck"),
      action('bash', 'echo 42'),
      agent(reply),
      agent(reply),
      agent(reply),
      check('stuck'),
      result('OK, I was stuck, but no more.'),
      agent(reply),
      agent(reply),
      check('not stuck'),
    ]);
  });

  it('ten condensations in a row (a context-window error loop) are stuck', () => {
    expectPeerChecks([user('Hello'), ...repeat(10, () => [condensation()]), check('stuck')]);
  });

  it('ten condensations with commands and reads between them are not stuck', () => {
    const events = repeat(10, (i) => [
      condensation(),
      ...(i < 9 ? cmd(`ls ${i}`, files) : []),
      ...(i < 9 && i % 2 === 0 ? read(`file${i}.txt`, `File content ${i}`) : []),
    ]);
    expectPeerChecks([user('Hello'), ...events, check('not stuck')]);
  });

  it('nine condensations in a row are not stuck', () => {
    expectPeerChecks([user('Hello'), ...repeat(9, () => [condensation()]), check('not stuck')]);
  });

  it('ten condensations with user messages between them are stuck when headless', () => {
    const events = repeat(10, (i) => [condensation(), ...(i < 9 ? [user(`Please continue ${i}`)] : [])]);
    expectPeerChecks([user('Hello'), ...events, check('stuck')]);
  });

  it('ten condensations before the last user message: stuck headless, not stuck interactive', () => {
    expectPeerChecks([
      ...repeat(10, () => [condensation()]),
      user('Please continue'),
      check('stuck', 'headless'),
      check('not stuck', 'interactive'),
    ]);
  });
});

describe("OpenHands SDK's StuckDetector suite (only what follows the last user message counts)", () => {
  const files = 'file1.txt\nfile2.txt';
  const ls = () => [agent('I need to run ls command'), ...cmd('ls', files)];
  const sdk = (events: OpenHandsEvent[]) => expectPeerChecks(events, 'interactive');

  it('one action and its result are not stuck', () => {
    sdk([user('Hello'), ...ls(), check('not stuck')]);
  });

  it('four identical command turns after older messages and filler replies are stuck', () => {
    const old = Array.from({ length: 50 }, (_, i) => user(`old-${i}`));
    sdk([...old, user('start'), ...repeat(3, () => [agent('ok')]), ...repeat(4, ls), check('stuck')]);
  });

  it('four identical command turns after twelve filler replies and no user message are stuck', () => {
    sdk([...repeat(12, () => [agent('ok')]), ...repeat(4, ls), check('stuck')]);
  });

  it('four identical command turns alone are stuck', () => {
    sdk([...repeat(4, ls), check('stuck')]);
  });

  it('three identical command turns are not stuck', () => {
    sdk([user('Please run ls'), ...repeat(3, ls), check('not stuck')]);
  });

  it('four identical command turns are stuck', () => {
    sdk([user('Please run ls'), ...repeat(4, ls), check('stuck')]);
  });

  it('the same failing command: twice is not stuck, three times is', () => {
    const failing = () => [
      agent('I need to run invalid_command'),
      ...cmd('invalid_command', "Command 'invalid_command' not found", true),
    ];
    sdk([
      user('Please run the invalid command'),
      ...repeat(2, failing),
      check('not stuck'),
      ...failing(),
      check('stuck'),
    ]);
  });

  // The SDK's newer (2026-08) ladder: a nudge at the third identical failing call, a stop at the fourth.
  const invalid = () => [
    agent('I need to run invalid_command'),
    ...cmd('invalid_command', "Command 'invalid_command' not found", true),
  ];

  it('test_run_recovers_after_nudge_when_model_self_corrects: nudged at the third failure, no stop after a fix', () => {
    const trace = tracePeer([
      ...repeat(3, invalid),
      agent('That command does not exist; I will list the files instead.'),
      ...cmd('ls', files),
      ...cmd('cat file1.txt', 'hello'),
    ]);
    expect(firstDetection(trace)).toBe(9);
    expectNoStop(trace);
  });

  it('test_run_does_not_renudge_action_error_while_streak_is_frozen: one nudge, the fourth failure stops', () => {
    const trace = tracePeer(repeat(4, invalid));
    const nudges = trace.flatMap((e) => e.verdicts).filter((v) => v.action === 'nudge');
    expect(nudges).toHaveLength(1);
    expect(firstDetection(trace)).toBe(9);
    expect(firstStop(trace)).toBe(12);
  });

  // The SDK's own calls in these cases (tests/sdk/.../test_action_error_nudge.py): its tool
  // `always_error_tool` called with `{"command": "create"}` and nothing else, answered with an
  // AgentErrorEvent; the thought is empty (no message step), the empty reply is a message of no text.
  const badCall = (input: unknown) => () => [
    action('always_error_tool', input),
    result('`file_text` is required for command: create.', true),
  ];
  describe.each([
    ['an argument object', { command: 'create' }],
    ['a command string', 'create'],
  ])("the SDK's own failing call, as %s", (_shape, input) => {
    it('test_run_nudges_before_going_stuck_on_repeating_action_error: nudged at the third failure, stopped at the fourth', () => {
      const trace = tracePeer([user('Create /tmp/foo.py'), ...repeat(4, badCall(input))]);
      const nudges = trace.flatMap((e) => e.verdicts).filter((v) => v.action === 'nudge');
      expect(nudges, formatTrace(trace)).toHaveLength(1);
      expect(firstDetection(trace), formatTrace(trace)).toBe(7);
      expect(firstStop(trace), formatTrace(trace)).toBe(9);
    });

    it('test_run_recovers_after_nudge_when_model_self_corrects: nudged at the third failure, no stop after the reply', () => {
      const trace = tracePeer([
        user('Create /tmp/foo.py'),
        ...repeat(3, badCall(input)),
        agent('I see the issue, stopping here.'),
      ]);
      expect(firstDetection(trace), formatTrace(trace)).toBe(7);
      expectNoStop(trace);
    });

    it('test_run_does_not_renudge_action_error_while_streak_is_frozen: one nudge, no stop after an empty reply', () => {
      const trace = tracePeer([
        user('Create /tmp/foo.py'),
        ...repeat(3, badCall(input)),
        agent(''),
        agent('I see the issue, stopping here.'),
      ]);
      const nudges = trace.flatMap((e) => e.verdicts).filter((v) => v.action === 'nudge');
      expect(nudges, formatTrace(trace)).toHaveLength(1);
      expectNoStop(trace);
    });
  });

  it('a reply after the failures ends it: no stop', () => {
    expectNoStop(tracePeer([...repeat(3, invalid), agent('I cannot run it: the command does not exist.')]));
  });

  it('three agent messages in a row that differ only in a number are stuck (monologue)', () => {
    sdk([user('Hello'), ...repeat(3, (i) => [agent(`I'm thinking... ${i}`)]), check('stuck')]);
  });

  it('four different commands are not stuck', () => {
    const turns = ['ls', 'pwd', 'whoami', 'date'].flatMap((command) => [
      agent(`I need to run ${command} command`),
      ...cmd(command, `output from ${command}`),
    ]);
    sdk([user('Please run different commands'), ...turns, check('not stuck')]);
  });

  it('a user message ends the stuck state; one new command after it is not stuck', () => {
    sdk([
      user('Please run ls'),
      ...repeat(4, ls),
      check('stuck'),
      user('Try something else'),
      check('not stuck'),
      agent("I'll try pwd command"),
      ...cmd('pwd', '/home/user'),
      check('not stuck'),
    ]);
  });
});
