import { describe, expect, it } from 'vitest';
import { scanJson } from './guardTranscripts.js';

// refused51: a call the agent's CLI refused itself, before any hook ran (a command it blocks, a tool
// it does not have, arguments it could not read), is a result the model read, like a failed call:
// `scan` judges it. Only loopguard's own refusals (its fixed text) are counted and not judged
// (scanGuardVerdicts.test.ts). The record shapes are those Claude Code 2.1.330, Gemini CLI 0.61.0
// and Codex 0.169.0 wrote offline for such calls; a waiting command (`sleep 60`, a `sleep` tool)
// that the CLI refused waited for nothing, so its exemption does not hold.

const base = { sessionId: 's1', cwd: '/tmp/app', isSidechain: false, timestamp: '2026-11-30T08:00:00.000Z' };

/** A Claude Code session of `calls` calls of `Bash` with `command`, each answered by `result` (its record's fields). */
function claudeSession(calls: number, command: string, result: (n: number) => Record<string, unknown>) {
  const lines: unknown[] = [{ ...base, type: 'user', message: { role: 'user', content: 'Fix the bug.' } }];
  for (let n = 1; n <= calls; n++) {
    lines.push(
      {
        ...base,
        type: 'assistant',
        message: {
          id: `msg_${n}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command } }],
          usage: { input_tokens: 100, output_tokens: 12 },
        },
      },
      { ...base, type: 'user', ...result(n) },
    );
  }
  return lines;
}

const claudeResult = (n: number, content: string) => ({
  message: {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content, is_error: true }],
  },
});

describe("scan: a call the agent's CLI refused itself is judged as a failed call (refused51)", () => {
  it('Claude Code: the same blocked `sleep 60`, over and over, is a loop', async () => {
    const blocked = 'Blocked: standalone sleep 60. To wait for a condition, use Monitor with an until-loop.';
    const lines = claudeSession(6, 'sleep 60', (n) => ({
      ...claudeResult(n, `<tool_use_error>${blocked}</tool_use_error>`),
      toolUseResult: `Error: ${blocked}`,
    }));
    const [session] = (await scanJson(lines)).sessions;
    expect(session).toMatchObject({ toolCalls: 6, deniedCalls: 0 });
    expect(session?.loops).toEqual([expect.objectContaining({ kind: 'same_error', stopCall: 4 })]);
  });

  it('Claude Code: a sleep that ran is still waiting, not a loop', async () => {
    const lines = claudeSession(6, 'sleep 60', (n) => ({
      ...claudeResult(n, '(Bash completed with no output)'),
      toolUseResult: { stdout: '', stderr: '' },
    }));
    expect((await scanJson(lines)).sessions[0]).toMatchObject({ toolCalls: 6, loops: [] });
  });

  it("Claude Code: a denial by its permissions or by another hook is not loopguard's refusal: judged", async () => {
    const needsApproval = "touch in '/tmp/app/x' needs approval.";
    const byPermissions = claudeSession(6, 'touch x', (n) => ({
      ...claudeResult(n, needsApproval),
      toolUseResult: `Error: ${needsApproval}`,
      permissionDecision: { decision: 'reject', source: 'config', reasonCode: 'unknown' },
    }));
    const byHook = 'PreToolUse:Bash hook error: [./guard.sh]: touching files is not allowed';
    const byAnotherHook = claudeSession(6, 'touch x', (n) => ({
      ...claudeResult(n, byHook),
      toolUseResult: `Error: ${byHook}`,
      permissionDecision: {
        decision: 'reject',
        source: 'hook',
        reasonType: 'hook',
        reasonCode: 'hook:PreToolUse',
      },
    }));
    for (const lines of [byPermissions, byAnotherHook]) {
      const [session] = (await scanJson(lines)).sessions;
      expect(session).toMatchObject({ toolCalls: 6, deniedCalls: 0 });
      expect(session?.loops).toEqual([expect.objectContaining({ kind: 'same_error' })]);
    }
  });

  it('Gemini CLI: the same call of a tool it does not have (`sleep`), over and over, is a loop', async () => {
    const lines = [
      { sessionId: 'g1', projectHash: 'abc', startTime: '2026-11-30T08:00:00.000Z' },
      ...[1, 2, 3, 4, 5, 6].map((n) => ({
        id: `r${n}`,
        type: 'gemini',
        timestamp: '2026-11-30T08:00:00.000Z',
        content: '',
        model: 'gemini-2.5-pro',
        tokens: { input: 10, output: 5, total: 15 },
        toolCalls: [
          {
            id: `c${n}`,
            name: 'sleep',
            args: { seconds: 60 },
            status: 'error',
            result: [
              {
                functionResponse: {
                  id: `c${n}`,
                  name: 'sleep',
                  response: { error: 'Tool "sleep" not found. Did you mean one of: "read_file"?' },
                },
              },
            ],
          },
        ],
      })),
    ];
    const [session] = (await scanJson(lines)).sessions;
    expect(session).toMatchObject({ toolCalls: 6, deniedCalls: 0 });
    expect(session?.loops).toEqual([expect.objectContaining({ kind: 'same_error', stopCall: 4 })]);
  });

  it('Codex: the same unsupported call (`sleep`), over and over, is a loop', async () => {
    const item = (payload: Record<string, unknown>) => ({
      timestamp: '2026-11-30T08:00:00.000Z',
      type: 'response_item',
      payload,
    });
    const lines = [
      { timestamp: '2026-11-30T08:00:00.000Z', type: 'session_meta', payload: { id: 'x1', cwd: '/tmp/app' } },
      ...[1, 2, 3, 4, 5, 6].flatMap((n) => [
        item({ type: 'function_call', name: 'sleep', arguments: '{"seconds":60}', call_id: `c${n}` }),
        item({ type: 'function_call_output', call_id: `c${n}`, output: 'unsupported call: sleep' }),
      ]),
    ];
    const [session] = (await scanJson(lines)).sessions;
    expect(session).toMatchObject({ toolCalls: 6, deniedCalls: 0 });
    expect(session?.loops).toEqual([expect.objectContaining({ kind: 'repeated_action', stopCall: 4 })]);
  });
});
