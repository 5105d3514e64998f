import { describe, expect, it } from 'vitest';
import {
  ClaudeCodeSteps,
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
