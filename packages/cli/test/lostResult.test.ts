import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { claudeFailingCall, hookState, tempProject } from './hookHelpers.js';

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
