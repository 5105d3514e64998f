import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { MAX_TRANSCRIPT_READS } from '../src/hook/skippedCall.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import {
  claudeEvent,
  claudeFailingCall,
  hookState,
  mcpHookCall,
  tempProject,
  trustedTranscript,
} from './hookHelpers.js';

// qa60: Claude Code 2.1.330 skips a `PostToolUse`/`PostToolUseFailure` mcp_tool hook of a session's
// first call when loopguard's MCP server was still connecting as that call's reply began ("mcp_tool
// hook skipped — MCP server 'loopguard' not connected" in its debug log; the `PreToolUse` waits for
// the server). The call, counted when it started, was then taken to be the next call's result, and
// every door said "9 tool calls ran" of a session that ran 10 (scan: "loopguard's hooks saw 9 of the
// 10 tool calls that ran").

/** Claude Code's events of `calls` failing Bash calls in session `s1`, as the hook receives them. */
async function session(calls: Array<{ n: number; pre: boolean; post: boolean }>): Promise<string> {
  const dir = tempProject();
  for (const { n, pre, post } of calls) {
    const call = claudeFailingCall(dir, 's1', n, `cat missing${n}.txt`);
    if (pre) await answerHookEvent('claude', JSON.stringify(call.pre), { env: {}, cwd: dir });
    if (post) await answerHookEvent('claude', JSON.stringify(call.post), { env: {}, cwd: dir });
  }
  return dir;
}

describe("a session's first call, counted when it started", () => {
  it('is still counted once when its result never reaches loopguard: the next calls count as theirs', async () => {
    const dir = await session([
      { n: 1, pre: true, post: false },
      { n: 2, pre: true, post: true },
      { n: 3, pre: true, post: true },
    ]);
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's1', tool_calls: 3 }]);
  });

  it('is counted once when its result comes after a parallel call of the same reply', async () => {
    const dir = tempProject();
    const first = claudeFailingCall(dir, 's1', 1, 'cat missing1.txt');
    const second = claudeFailingCall(dir, 's1', 2, 'cat missing2.txt');
    for (const event of [first.pre, second.pre, second.post, first.post])
      await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir });
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's1', tool_calls: 2 }]);
  });

  it('is counted once when its result comes', async () => {
    const dir = await session([
      { n: 1, pre: true, post: true },
      { n: 2, pre: true, post: true },
    ]);
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's1', tool_calls: 2 }]);
  });
});

// latesrv62: the skipped result itself. The detector never saw it, so a loop starting at that call
// was nudged one call late. At the session's next event it is read from the session's transcript
// (what the model received), judged before that event's call, once.

/** The lines Claude Code 2.1.330 writes for call `n` of a session: its reply's `tool_use`, then its `tool_result`. */
function transcriptCall(n: number, input: unknown, result: { content: string; isError: boolean }): string {
  const id = `toolu_${n}`;
  const lines = [
    {
      type: 'assistant',
      sessionId: 's1',
      isSidechain: false,
      message: {
        id: `msg_${n}`,
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'Bash', input }],
      },
    },
    {
      type: 'user',
      sessionId: 's1',
      isSidechain: false,
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: id, content: result.content, is_error: result.isError },
        ],
      },
    },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

/** A Claude Code Bash call that succeeds with the same output each time (`PostToolUse`). */
function claudeSameOutputCall(dir: string, n: number, transcript = join(dir, 'transcript.jsonl')) {
  const tool = {
    tool_name: 'Bash',
    tool_input: { command: 'npm test', description: `try ${n}` },
    tool_use_id: `toolu_${n}`,
    transcript_path: transcript,
  };
  return {
    pre: claudeEvent(dir, 's1', 'PreToolUse', tool),
    post: claudeEvent(dir, 's1', 'PostToolUse', {
      ...tool,
      tool_response: { stdout: '1 failing', stderr: '', interrupted: false },
    }),
    input: tool.tool_input,
    output: '1 failing',
  };
}

/** Answers `events` in order as the command hook does; the replies. */
async function answer(dir: string, events: unknown[], env: Record<string, string> = {}): Promise<string[]> {
  const replies: string[] = [];
  for (const event of events)
    replies.push(await answerHookEvent('claude', JSON.stringify(event), { env, cwd: dir }));
  return replies;
}

describe('the result of a first call Claude Code never handed over (latesrv62)', () => {
  it('a failure: read from the transcript at the next call, the loop starting there is nudged on time', async () => {
    const dir = tempProject();
    const calls = [1, 2, 3].map((n) => claudeFailingCall(dir, 's1', n));
    const first = calls[0] as (typeof calls)[0];
    writeFileSync(
      join(dir, 'transcript.jsonl'),
      transcriptCall(1, first.input, { content: first.error, isError: true }),
    );
    const replies = await answer(dir, [
      first.pre,
      ...calls.slice(1).flatMap((call) => [call.pre, call.post]),
    ]);
    // the same error 3 times since call 1: nudged after call 3, as `scan` replays the transcript
    expect(replies.at(-1)).toContain('Loop detected (same_error)');
    expect(replies.at(-1)).toContain('since call 1');
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([{ session_id: 's1', tool_calls: 3, steps: 6, nudges: 1 }]);
    expect(entries).toMatchObject([{ topic: 'loop_nudge', metadata: { toolCall: 3 } }]);
  });

  it('a success: its output read as the model received it, the repeat is nudged on time', async () => {
    const dir = tempProject();
    const calls = [1, 2, 3].map((n) => claudeSameOutputCall(dir, n));
    const first = calls[0] as (typeof calls)[0];
    writeFileSync(
      join(dir, 'transcript.jsonl'),
      transcriptCall(1, first.input, { content: first.output, isError: false }),
    );
    const replies = await answer(dir, [
      first.pre,
      ...calls.slice(1).flatMap((call) => [call.pre, call.post]),
    ]);
    expect(replies.at(-1)).toContain('Loop detected');
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 3, steps: 6, nudges: 1 }]);
  });

  it('is judged once: its own hook arriving late after all is neither counted nor judged again', async () => {
    const dir = tempProject();
    const calls = [1, 2, 3].map((n) => claudeFailingCall(dir, 's1', n));
    const [first, second, third] = calls as [(typeof calls)[0], (typeof calls)[0], (typeof calls)[0]];
    writeFileSync(
      join(dir, 'transcript.jsonl'),
      transcriptCall(1, first.input, { content: first.error, isError: true }),
    );
    await answer(dir, [first.pre, second.pre, second.post]);
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 2, steps: 4 }]);
    // the late hook (twice: a hook installed twice) is silent: judged again, it would be the third failure
    expect(await answer(dir, [first.post, first.post])).toEqual(['', '']);
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 2, steps: 4, nudges: 0 }]);
    const [, nudge] = await answer(dir, [third.pre, third.post]);
    expect(nudge).toContain('3 times, since call 1');
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 3, steps: 6, nudges: 1 }]);
  });

  it('a call still running beside the next one is not in the transcript yet: its own hook brings it, once', async () => {
    const dir = tempProject();
    const first = claudeFailingCall(dir, 's1', 1);
    const second = claudeFailingCall(dir, 's1', 2);
    writeFileSync(join(dir, 'transcript.jsonl'), '');
    await answer(dir, [first.pre, second.pre, second.post, first.post]);
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 2, steps: 4 }]);
  });

  it('is looked for again when Claude Code wrote it to the transcript after the next call (the real CLI does)', async () => {
    const dir = tempProject();
    const calls = [1, 2, 3].map((n) => claudeFailingCall(dir, 's1', n));
    const [first, second, third] = calls as [(typeof calls)[0], (typeof calls)[0], (typeof calls)[0]];
    writeFileSync(join(dir, 'transcript.jsonl'), '');
    await answer(dir, [first.pre, second.pre, second.post]);
    writeFileSync(
      join(dir, 'transcript.jsonl'),
      transcriptCall(1, first.input, { content: first.error, isError: true }),
    );
    const [, nudge] = await answer(dir, [third.pre, third.post]);
    expect(nudge).toContain('Loop detected (same_error)');
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 3, steps: 6, nudges: 1 }]);
  });

  it(`is looked for ${MAX_TRANSCRIPT_READS} times: a transcript that does not hold it is not read at every call`, async () => {
    const dir = tempProject();
    // five different files: no loop, every call runs
    const calls = [1, 2, 3, 4, 5].map((n) => claudeFailingCall(dir, 's1', n, `cat missing${n}.txt`));
    const [first, ...rest] = calls as [(typeof calls)[0], ...(typeof calls)[0][]];
    writeFileSync(join(dir, 'transcript.jsonl'), '');
    await answer(dir, [
      first.pre,
      ...rest.slice(0, MAX_TRANSCRIPT_READS).flatMap((call) => [call.pre, call.post]),
    ]);
    writeFileSync(
      join(dir, 'transcript.jsonl'),
      transcriptCall(1, first.input, { content: first.error, isError: true }),
    );
    const last = rest[MAX_TRANSCRIPT_READS] as (typeof calls)[0];
    await answer(dir, [last.pre, last.post]);
    // calls 2 to 5 judged, the first's result not read a fourth time
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 5, steps: 8 }]);
  });

  it("the MCP server reads it only from the session's own transcript, never from a file the model wrote", async () => {
    for (const trusted of [true, false]) {
      const dir = tempProject();
      const own = trustedTranscript(dir);
      const path = trusted ? own.path : join(dir, 'transcript.jsonl');
      const calls = [1, 2, 3].map((n) => claudeFailingCall(dir, 's1', n));
      const first = calls[0] as (typeof calls)[0];
      writeFileSync(path, transcriptCall(1, first.input, { content: first.error, isError: true }));
      const lines: string[] = [];
      const server = new McpHookServer({ write: (line) => lines.push(line), projectDir: dir, env: own.env });
      let id = 0;
      for (const call of [first.pre, ...calls.slice(1).flatMap((c) => [c.pre, c.post])]) {
        server.receive(mcpHookCall({ ...call, transcript_path: path }, ++id));
        await server.idle();
      }
      const last = JSON.parse(lines.at(-1) ?? '{}').result.content[0].text as string;
      // a forged transcript is not the model's input: the loop is judged from the calls seen (one late)
      expect(last.includes('Loop detected'), `trusted: ${trusted}`).toBe(trusted);
      expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 3, steps: trusted ? 6 : 4 }]);
    }
  });
});

describe('a call under a reused id while the first call runs (latesrv62)', () => {
  it('keeps the first call counted as started: its result, when it comes, is not counted again', async () => {
    const dir = tempProject();
    const first = claudeFailingCall(dir, 's1', 1);
    const second = claudeFailingCall(dir, 's1', 2);
    // a provider that lets the model write call ids: a third call under the second's id
    const third = claudeFailingCall(dir, 's1', 2, 'cat other.txt');
    await answer(dir, [first.pre, second.pre, second.post, third.pre, third.post, first.post]);
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 3 }]);
  });
});
