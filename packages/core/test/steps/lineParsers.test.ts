import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  GeminiStreamJsonParser,
  JsonlStepParser,
  type Step,
  type StepLineParser,
  StepLoopDetector,
} from '../../src/entries/steps.js';
import { InvalidInputError } from '../../src/index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const parseFixture = (parser: StepLineParser, name: string): Step[] =>
  readFileSync(join(fixtures, name), 'utf8')
    .split('\n')
    .flatMap((line) => parser.push(line));

const parsers: Array<[string, () => StepLineParser]> = [
  ['ClaudeStreamJsonParser', () => new ClaudeStreamJsonParser()],
  ['JsonlStepParser', () => new JsonlStepParser()],
  ['CodexJsonParser', () => new CodexJsonParser()],
  ['GeminiStreamJsonParser', () => new GeminiStreamJsonParser()],
];

describe.each(parsers)('%s: lines that are not strings', (_name, make) => {
  it.each([
    [42, 'number 42'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{ type: 'message', text: 'hi' }, 'object'],
    [Buffer.from('{}'), 'object'],
  ])('rejects %o with an InvalidInputError naming the line', (line, described) => {
    const parser = make();
    parser.push('');
    const error = (() => {
      try {
        parser.push(line as never);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/^line 2 must be a string, got /);
    expect((error as Error).message).toContain(described);
  });

  it('goes on with the next line after a rejected one', () => {
    const parser = make();
    expect(() => parser.push(7 as never)).toThrow(InvalidInputError);
    expect(() => parser.push('{oops')).toThrow(/^line 2 is not JSON/);
    expect(parser.push('  ')).toEqual([]);
  });
});

describe('a line the caller has parsed already', () => {
  it.each([
    ['CodexJsonParser', () => new CodexJsonParser(), 'codex-exec-0.169.0.jsonl'],
    ['GeminiStreamJsonParser', () => new GeminiStreamJsonParser(), 'gemini-cli-stream-0.61.0.jsonl'],
    ['ClaudeStreamJsonParser', () => new ClaudeStreamJsonParser(), 'claude-stream.jsonl'],
    ['JsonlStepParser', () => new JsonlStepParser(), 'django__django-16950.jsonl'],
  ] as const)(
    '%s gives the same steps from its value, without parsing the line again',
    (_name, make, name) => {
      const lines = readFileSync(join(fixtures, name), 'utf8').split('\n');
      const values = lines.map((line) => (line.trim() === '' ? undefined : JSON.parse(line)));
      const parser = make();
      // the text beside a value is not read: a line that is not JSON goes through
      const steps = lines.flatMap((line, i) =>
        parser.push(values[i] === undefined ? line : '{oops', values[i]),
      );
      expect(steps.length).toBeGreaterThan(0);
      expect(steps).toEqual(parseFixture(make(), name));
    },
  );
});

describe('CodexJsonParser (recorded codex exec --json, Codex CLI 0.169.0)', () => {
  it('maps finished items: commands to action + observation (exit code as error), patches to actions, the last text to a message', () => {
    // reasoning and the message before a command are what no hook sees: no steps
    expect(parseFixture(new CodexJsonParser(), 'codex-exec-0.169.0.jsonl')).toEqual([
      { type: 'action', tool: 'shell', input: { command: "/bin/bash -lc 'cat missing.txt'" } },
      {
        type: 'observation',
        tool: 'shell',
        output: 'cat: missing.txt: No such file or directory\n',
        error: true,
      },
      {
        type: 'action',
        tool: 'apply_patch',
        input: { changes: [{ path: '/tmp/codexprobe/work2/hello.txt', kind: 'add' }] },
      },
      { type: 'action', tool: 'shell', input: { command: "/bin/bash -lc 'cat hello.txt'" } },
      { type: 'observation', tool: 'shell', output: 'hi\n' },
      { type: 'message', text: 'Done.' },
    ]);
  });

  it('maps MCP tool calls, web searches and failed patches; skips other events', () => {
    const parser = new CodexJsonParser();
    const item = (value: object) => JSON.stringify({ type: 'item.completed', item: value });
    expect(
      parser.push(
        item({
          type: 'mcp_tool_call',
          server: 'gh',
          tool: 'search',
          arguments: { q: 'x' },
          result: { n: 0 },
          status: 'completed',
        }),
      ),
    ).toEqual([
      { type: 'action', tool: 'gh/search', input: { q: 'x' } },
      { type: 'observation', tool: 'gh/search', output: '{"n":0}' },
    ]);
    expect(
      parser.push(
        item({
          type: 'mcp_tool_call',
          server: 'gh',
          tool: 'search',
          arguments: {},
          error: { message: 'rate limited' },
          status: 'failed',
        }),
      )[1],
    ).toEqual({
      type: 'observation',
      tool: 'gh/search',
      output: 'rate limited',
      error: true,
    });
    expect(parser.push(item({ type: 'web_search', query: 'vitest timeout' }))).toEqual([
      { type: 'action', tool: 'web_search', input: 'vitest timeout' },
    ]);
    expect(parser.push(item({ type: 'file_change', changes: [], status: 'failed' }))[1]).toMatchObject({
      error: true,
    });
    expect(parser.push(item({ type: 'todo_list', items: [] }))).toEqual([]);
    expect(parser.push('{"type":"item.started","item":{"type":"agent_message","text":"x"}}')).toEqual([]);
    expect(parser.push('{"type":"turn.failed","error":{"message":"boom"}}')).toEqual([]);
    expect(parser.push('[1]')).toEqual([]);
  });

  it('a looping Codex stream is nudged, then stopped', () => {
    const parser = new CodexJsonParser();
    const detector = new StepLoopDetector();
    const failing = JSON.stringify({
      type: 'item.completed',
      item: {
        type: 'command_execution',
        command: 'npm test',
        aggregated_output: 'Error: expected 2, got 3',
        exit_code: 1,
        status: 'failed',
      },
    });
    const actions = Array.from({ length: 4 }, () =>
      parser
        .push(failing)
        .map((step) => detector.observe(step).action)
        .at(-1),
    );
    const nudge = actions.indexOf('nudge');
    expect(nudge).toBeGreaterThan(0);
    expect(actions.slice(0, nudge).every((action) => action === 'continue')).toBe(true);
    expect(actions[nudge + 1]).toBe('stop');
  });
});

describe('ClaudeStreamJsonParser: subagents', () => {
  const call = (id: string, command: string, parent: string | null) =>
    JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] },
      parent_tool_use_id: parent,
    });
  const result = (id: string, output: string, parent: string | null) =>
    JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
      parent_tool_use_id: parent,
    });

  it("names the run each line's steps belong to: a subagent by the Task call that started it, else null", () => {
    const parser = new ClaudeStreamJsonParser();
    expect(parser.push(call('t1', 'ls', null))).toEqual([
      { type: 'action', tool: 'Bash', input: { command: 'ls' } },
    ]);
    expect(parser.subagent).toBeNull();
    expect(parser.push(call('s1', 'cat a.py', 'task-a'))).toHaveLength(1);
    expect(parser.subagent).toBe('task-a');
    expect(parser.push(result('s1', 'print(1)', 'task-a'))).toEqual([
      { type: 'observation', tool: 'Bash', output: 'print(1)' },
    ]);
    expect(parser.subagent).toBe('task-a');
    expect(parser.push(result('t1', 'a.py', null))).toEqual([
      { type: 'observation', tool: 'Bash', output: 'a.py' },
    ]);
    expect(parser.subagent).toBeNull();
    expect(parser.push('{"type":"system","subtype":"init"}')).toEqual([]);
    expect(parser.subagent).toBeNull();
  });
});

describe('GeminiStreamJsonParser (recorded --output-format stream-json, Gemini CLI 0.61.0)', () => {
  it('maps tool uses and results (status error as a failure) and joins message pieces', () => {
    // the text before a tool call is narration no hook sees: only the turn's last text is a message
    expect(parseFixture(new GeminiStreamJsonParser(), 'gemini-cli-stream-0.61.0.jsonl')).toEqual([
      { type: 'action', tool: 'run_shell_command', input: { command: 'cat missing.txt' } },
      {
        type: 'observation',
        tool: 'run_shell_command',
        output: 'cat: missing.txt: No such file or directory',
      },
      { type: 'action', tool: 'read_file', input: { file_path: 'missing.txt' } },
      {
        type: 'observation',
        tool: 'read_file',
        output: 'File not found: /tmp/gemprobe/work/missing.txt',
        error: true,
      },
      { type: 'action', tool: 'write_file', input: { file_path: 'hello.txt', content: 'hi\n' } },
      { type: 'observation', tool: 'write_file', output: '' },
      { type: 'message', text: 'Done.' },
    ]);
  });

  it('joins message pieces; text before a tool call is dropped, the last text comes at the turn end', () => {
    const parser = new GeminiStreamJsonParser();
    const piece = (content: string) =>
      JSON.stringify({ type: 'message', role: 'assistant', content, delta: true });
    expect(parser.push(piece('Let me '))).toEqual([]);
    expect(parser.push(piece('look.'))).toEqual([]);
    expect(
      parser.push('{"type":"tool_use","tool_name":"glob","tool_id":"g1","parameters":{"pattern":"*.ts"}}'),
    ).toEqual([{ type: 'action', tool: 'glob', input: { pattern: '*.ts' } }]);
    expect(parser.push('{"type":"message","role":"assistant","content":"Whole."}')).toEqual([]);
    expect(parser.push('{"type":"message","role":"user","content":"hi"}')).toEqual([
      { type: 'message', text: 'Whole.' },
    ]);
    expect(parser.push('{"type":"tool_result","tool_id":"unknown","status":"success","output":"x"}')).toEqual(
      [{ type: 'observation', output: 'x' }],
    );
  });
});
