import { describe, expect, it } from 'vitest';
import { canonicalInput, type StepVerdict, shellCommandOf } from '../../src/entries/steps.js';
import { InvalidInputError } from '../../src/index.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

describe('a shell call is its command line, whatever the shape of its input', () => {
  it.each([
    [
      'Claude Code Bash with its reasoning',
      'Bash',
      { command: 'grep foo', description: 'Search' },
      'grep foo',
    ],
    [
      'with a timeout and background switch',
      'Bash',
      { command: 'npm test', timeout: 60_000, run_in_background: false },
      'npm test',
    ],
    ['Gemini CLI', 'run_shell_command', { command: 'ls', description: 'List', dir_path: 'src' }, 'ls'],
    ['Codex exec_command', 'exec_command', { cmd: 'cat a', workdir: '/repo', yield_time_ms: 1000 }, 'cat a'],
    [
      'Codex shell argv with bash -lc',
      'shell',
      { command: ['bash', '-lc', 'make test'], timeout_ms: 1 },
      'make test',
    ],
    [
      'an argv without a shell, quoted where needed',
      'local_shell',
      { command: ['rg', '-n', 'a b'] },
      "rg -n 'a b'",
    ],
    [
      "Codex exec --json's reported line",
      'shell',
      { command: "/bin/bash -lc 'cat missing.txt'" },
      'cat missing.txt',
    ],
    ['a quote inside the script', 'shell', { command: `bash -lc 'echo '"'"'hi'"'"''` }, "echo 'hi'"],
    [
      'OpenHands execute_bash',
      'execute_bash',
      { command: 'pytest', thought: 'run', security_risk: 'LOW' },
      'pytest',
    ],
    ['any case of the tool name', 'BASH', { command: 'ls' }, 'ls'],
    ['an unknown tool whose input is only a command', 'mcp__box__run', { command: 'ls', timeout: 5 }, 'ls'],
  ])('%s', (_name, tool, input, command) => {
    expect(shellCommandOf(tool, input)).toBe(command);
    expect(canonicalInput(tool, input)).toBe(command);
  });

  it.each([
    ['an editor subcommand with a path', 'str_replace_editor', { command: 'view', path: '/a.py' }],
    ['keys typed into a running process', 'execute_bash', { command: 'C-c', is_input: true }],
    ['a shell tool without a command', 'Bash', { description: 'nothing' }],
    ['an argv holding a non-string', 'shell', { command: ['ls', 1] }],
    ['a string input (already a command)', 'Bash', 'ls'],
    ['an unknown tool with other fields', 'search', { command: 'grep', query: 'x' }],
  ])('not a shell call: %s', (_name, tool, input) => {
    expect(shellCommandOf(tool, input)).toBeUndefined();
    expect(canonicalInput(tool, input)).toBe(input);
  });

  it('a throwing getter on a command field is a typed error naming it', () => {
    const input = {
      get command(): string {
        throw new Error('no access');
      },
    };
    expect(() => shellCommandOf('Bash', input)).toThrow(InvalidInputError);
    expect(() => shellCommandOf('Bash', input)).toThrow(/step\.input\.command cannot be read/);
  });
});

/** The verdicts that are not `continue`, without the fields that name the time. */
const verdictsOf = (steps: ReturnType<typeof turn>) => {
  const { detector } = makeStepDetector();
  return detections(feed(detector, steps)).map((v: StepVerdict) => ({
    action: v.action,
    loopType: v.loopType,
    step: v.step,
    message: v.message,
    evidence: v.evidence,
  }));
};

describe('the detector gives one verdict for one action, whatever its input shape', () => {
  const session = (shape: (command: string, i: number) => unknown) =>
    Array.from({ length: 5 }, (_, i) =>
      turn(shape(`cat missing.txt`, i), 'cat: missing.txt: No such file or directory', {
        error: true,
        tool: 'Bash',
      }),
    ).flat();

  it('a string, a {command} with reworded descriptions, and a bash -lc argv are one verdict', () => {
    const asString = verdictsOf(session((c) => c));
    expect(asString.length).toBeGreaterThan(0);
    expect(verdictsOf(session((c, i) => ({ command: c, description: `Read it (${i})` })))).toEqual(asString);
    expect(verdictsOf(session((c) => ({ command: ['bash', '-lc', c], timeout: 10 })))).toEqual(asString);
  });

  it('messages and evidence show the command, never the JSON of the input', () => {
    const found = verdictsOf(session((c) => ({ command: c, description: 'Read the file' })));
    const text = JSON.stringify(found);
    expect(text).toContain('cat missing.txt');
    expect(text).not.toContain('{\\"command\\"');
    expect(text).not.toContain('Read the file');
  });

  it('exemptions read the command: a polled {command: "sleep 30"} is never a loop', () => {
    const polled = Array.from({ length: 8 }, () =>
      turn({ command: 'sleep 30', description: 'wait' }, '', { tool: 'Bash' }),
    ).flat();
    expect(verdictsOf(polled)).toEqual([]);
  });
});
