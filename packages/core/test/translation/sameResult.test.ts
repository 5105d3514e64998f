import { describe, expect, it } from 'vitest';
import {
  ClaudeCodeSteps,
  CodexRolloutSteps,
  claudeToolResponseText,
  GeminiCliSteps,
  geminiToolResponse,
} from '../../src/entries/steps.js';

// One tool result, as each door of the same CLI carries it (shapes from the recorded fixtures of
// Claude Code 2.1.330 and Gemini CLI 0.61.0), reads as one observation.

describe('Gemini CLI: the hook, the chat and the stream read a result alike', () => {
  const model =
    '<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: 1505\n</untrusted_context>';
  const display = 'cat: missing.txt: No such file or directory';

  it('the displayed output, and the exit code of the model copy as the failure', () => {
    const hook = geminiToolResponse({ llmContent: model, returnDisplay: display });
    const [, chat] = new GeminiCliSteps().chatReply({
      toolCalls: [
        {
          name: 'run_shell_command',
          args: { command: 'cat missing.txt' },
          result: [{ functionResponse: { response: { output: model } } }],
          status: 'success',
          resultDisplay: display,
        },
      ],
    });
    const [stream] = new GeminiCliSteps().streamEvent({
      type: 'tool_result',
      tool_id: 't',
      status: 'success',
      output: display,
    });
    expect(hook).toEqual({ output: display, error: true });
    expect(chat).toEqual({ type: 'observation', tool: 'run_shell_command', output: display, error: true });
    // the stream has no model copy: the same output, without the exit code (documented)
    expect(stream).toEqual({ type: 'observation', output: display });
  });

  it('an empty display stays empty (the model copy carries a process id that changes every call)', () => {
    const empty = '<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 9088\n</untrusted_context>';
    expect(geminiToolResponse({ llmContent: empty, returnDisplay: '' })).toEqual({
      output: '',
      error: false,
    });
  });

  it("a failure is the error's message", () => {
    expect(geminiToolResponse({ llmContent: 'x', error: { message: 'File not found: /a' } })).toEqual({
      output: 'File not found: /a',
      error: true,
    });
  });
});

describe('Claude Code: the hook reads a Bash result as the transcript holds it', () => {
  it('stdout and stderr joined; an empty result as Claude Code tells the model', () => {
    expect(claudeToolResponseText({ stdout: 'a', stderr: 'b', interrupted: false })).toBe('a\nb');
    expect(claudeToolResponseText({ stdout: '', stderr: '', interrupted: false })).toBe(
      '(Bash completed with no output)',
    );
    const steps = new ClaudeCodeSteps();
    steps.assistant({
      id: 'm',
      content: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: 'true' } }],
    });
    expect(
      steps.user({
        content: [{ type: 'tool_result', tool_use_id: 't', content: '(Bash completed with no output)' }],
      }),
    ).toEqual([
      { type: 'observation', tool: 'Bash', output: claudeToolResponseText({ stdout: '', stderr: '' }) },
    ]);
  });

  it('refused51: a result Claude Code wrapped in <tool_use_error> is its own refusal; a failed run is not', () => {
    const steps = new ClaudeCodeSteps();
    const call = (id: string) =>
      steps.assistant({
        id,
        content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'sleep 60' } }],
      });
    const result = (id: string, content: unknown) =>
      steps.user({ content: [{ type: 'tool_result', tool_use_id: id, content, is_error: true }] });
    call('a');
    expect(result('a', '<tool_use_error>Blocked: standalone sleep 60.</tool_use_error>')).toEqual([
      {
        type: 'observation',
        tool: 'Bash',
        output: '<tool_use_error>Blocked: standalone sleep 60.</tool_use_error>',
        error: true,
        refused: true,
      },
    ]);
    call('b');
    expect(
      result('b', [{ type: 'text', text: '<tool_use_error>Error: No such tool</tool_use_error>' }])[0],
    ).toMatchObject({ refused: true });
    call('c');
    expect(result('c', 'Exit code 1\nsleep: invalid time interval')[0]).not.toHaveProperty('refused');
  });

  // The hook's objects and the transcript's sentences of one real session of Claude Code 2.1.330
  // (an edit-and-rerun session offline): the hook must read what the model read.
  const file = '/tmp/app/src/calc.mjs';
  const patch = [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' a', '-b', '+c', ' d'] }];
  const current = ' (file state is current in your context \u2014 no need to Read it back)';

  it('Write and Edit: the sentence the model got, not the object the hook gets', () => {
    const update = {
      type: 'update',
      filePath: file,
      content: 'x\n',
      structuredPatch: patch,
      originalFile: 'y\n',
      userModified: false,
    };
    expect(claudeToolResponseText(update)).toBe(`The file ${file} has been updated successfully.${current}`);
    expect(
      claudeToolResponseText({ ...update, type: 'create', structuredPatch: [], originalFile: null }),
    ).toBe(`File created successfully at: ${file}${current}`);
    const edit = {
      filePath: file,
      oldString: 'b',
      newString: 'c',
      originalFile: 'a\nb\nd\n',
      structuredPatch: patch,
      userModified: false,
      replaceAll: false,
    };
    expect(claudeToolResponseText(edit)).toBe(`The file ${file} has been updated successfully.${current}`);
    expect(claudeToolResponseText({ ...edit, replaceAll: true })).toBe(
      `The file ${file} has been updated. All occurrences were successfully replaced.${current}`,
    );
  });

  it('Read: the numbered lines the model got', () => {
    const read = {
      type: 'text',
      file: {
        filePath: file,
        content: 'export function add(a, b) {\n  return 0;\n}\n',
        numLines: 4,
        startLine: 1,
        totalLines: 4,
      },
    };
    expect(claudeToolResponseText(read)).toBe('1\texport function add(a, b) {\n2\t  return 0;\n3\t}\n4\t');
    expect(claudeToolResponseText({ ...read, file: { ...read.file, content: 'z', startLine: 7 } })).toBe(
      '7\tz',
    );
  });

  it('the same edit through the hook and through the transcript is one observation', () => {
    const transcript = new ClaudeCodeSteps();
    transcript.assistant({
      id: 'm',
      content: [
        {
          type: 'tool_use',
          id: 't',
          name: 'Edit',
          input: { file_path: file, old_string: 'b', new_string: 'c' },
        },
      ],
    });
    const [seen] = transcript.user({
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't',
          content: `The file ${file} has been updated successfully.${current}`,
        },
      ],
    });
    const hook = claudeToolResponseText({
      filePath: file,
      oldString: 'b',
      newString: 'c',
      originalFile: 'a\nb\nd\n',
      structuredPatch: patch,
      userModified: false,
      replaceAll: false,
    });
    expect(seen).toEqual({ type: 'observation', tool: 'Edit', output: hook });
  });

  it('text is a message only when its reply calls no tool, given when the reply ends', () => {
    const steps = new ClaudeCodeSteps();
    expect(
      steps.assistant({
        id: 'a',
        content: [
          { type: 'thinking', thinking: 'hm' },
          { type: 'text', text: 'Let me look.' },
        ],
      }),
    ).toEqual([]);
    expect(
      steps.assistant({
        id: 'a',
        content: [{ type: 'tool_use', id: 't', name: 'Read', input: { file_path: 'x' } }],
      }),
    ).toEqual([{ type: 'action', tool: 'Read', input: { file_path: 'x' } }]);
    expect(steps.assistant({ id: 'b', content: [{ type: 'text', text: 'Done.' }] })).toEqual([]);
    expect(steps.end()).toEqual([{ type: 'message', text: 'Done.' }]);
  });
});

describe("refused51: a call the agent's CLI refused before it ran, as Gemini CLI 0.61.0 and Codex 0.169.0 write it", () => {
  it('Gemini CLI: a tool it does not have is refused; a tool that ran and failed is not', () => {
    const call = (name: string, error: string) => ({
      name,
      args: { command: 'sleep 60' },
      result: [{ functionResponse: { response: { error } } }],
      status: 'error',
    });
    const [, refused] = new GeminiCliSteps().chatReply({
      toolCalls: [
        call('run_shell_command', 'Tool "run_shell_command" not found. Did you mean one of: "grep_search"?'),
      ],
    });
    expect(refused).toMatchObject({ error: true, refused: true });
    const [, failed] = new GeminiCliSteps().chatReply({
      toolCalls: [call('read_file', 'File not found: /repo/Tool "x" not found')],
    });
    expect(failed).not.toHaveProperty('refused');
  });

  it("Codex: an unsupported call and arguments it could not read are refused; a command's output is not", () => {
    const steps = new CodexRolloutSteps();
    const output = (text: string) => {
      steps.item({ type: 'function_call', name: 'sleep', arguments: '{}', call_id: 'c' });
      return steps.item({ type: 'function_call_output', call_id: 'c', output: text })[0];
    };
    expect(output('unsupported call: sleep')).toMatchObject({ refused: true });
    expect(
      output('failed to parse function arguments: missing field `cmd` at line 1 column 10'),
    ).toMatchObject({
      refused: true,
    });
    expect(
      output('Chunk ID: a1\nProcess exited with code 0\nOutput:\nunsupported call: sleep\n'),
    ).not.toHaveProperty('refused');
  });
});
