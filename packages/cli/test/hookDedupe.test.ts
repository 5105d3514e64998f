import { describe, expect, it } from 'vitest';
import { claudeFailingCall, geminiEvent, hookCall, hookState, tempProject } from './hookHelpers.js';

// A hook installed twice (the user's settings and the project's): the CLI runs both entries on
// every event, one after the other or at once. Each event is counted once.
describe('loopguard hook: an event delivered twice counts once (issue 30)', () => {
  it('Claude Code: by tool_use_id, at once or one after the other', async () => {
    const dir = tempProject();
    const replies: string[] = [];
    for (const n of [1, 2, 3]) {
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      await Promise.all([hookCall(dir, 'claude', pre), hookCall(dir, 'claude', pre)]);
      const both = await Promise.all([hookCall(dir, 'claude', post), hookCall(dir, 'claude', post)]);
      replies.push(...both.map((r) => r.stdout));
    }
    expect(hookState(dir).sessions).toMatchObject([{ steps: 6, nudges: 1 }]);
    // the third failure is nudged once, by one of the two entries
    expect(replies.filter((r) => r.includes('Loop detected'))).toHaveLength(1);
  });

  it('Gemini CLI: by the event’s timestamp', async () => {
    const dir = tempProject();
    const call = { tool_name: 'run_shell_command', tool_input: { command: 'ls' } };
    for (const n of [1, 2]) {
      const after = geminiEvent(dir, 'g1', 'AfterTool', {
        ...call,
        tool_response: { llmContent: `Output: ${n}`, returnDisplay: `${n}` },
      });
      await hookCall(dir, 'gemini', after);
      await hookCall(dir, 'gemini', after);
    }
    expect(hookState(dir).sessions).toMatchObject([{ steps: 4 }]);
  });
});

// A provider that lets the model write its call ids (some local model servers) can give every
// repeat the id of the first call: each is a new call, not a hook's second copy of one (trust50).
describe('loopguard hook: a call id reused by a later call (trust50)', () => {
  const reused = (dir: string, n: number) => {
    const { pre, post } = claudeFailingCall(dir, 's1', n);
    return { pre: { ...pre, tool_use_id: 'toolu_same' }, post: { ...post, tool_use_id: 'toolu_same' } };
  };

  it('Claude Code: each call under one id is judged, its repeats found and stopped', async () => {
    const dir = tempProject();
    const replies: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const { pre, post } = reused(dir, n);
      replies.push((await hookCall(dir, 'claude', pre)).stdout);
      if (replies.at(-1)?.includes('"permissionDecision":"deny"')) break; // the call never runs
      replies.push((await hookCall(dir, 'claude', post)).stdout);
    }
    // as with ids of their own: nudged at the third failure, the fourth denied before it runs
    expect(replies[5]).toContain('Loop detected');
    expect(replies.at(-1)).toContain('"permissionDecision":"deny"');
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 3, nudges: 1, stops: 1 }]);
  });

  it('…and twice-installed hooks still count each call once under the reused id', async () => {
    const dir = tempProject();
    for (const n of [1, 2, 3]) {
      const { pre, post } = reused(dir, n);
      await hookCall(dir, 'claude', pre);
      await hookCall(dir, 'claude', pre);
      await hookCall(dir, 'claude', post);
      await hookCall(dir, 'claude', post);
    }
    expect(hookState(dir).sessions).toMatchObject([{ steps: 6, tool_calls: 3, nudges: 1 }]);
  });

  it('Claude Code: a stop left to the next call is not passed by reusing an answered id', async () => {
    const dir = tempProject();
    for (const n of [1, 2, 3, 4]) {
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      // the fourth call's PreToolUse went unanswered (its hook timed out): the stop comes after it ran
      if (n < 4) await hookCall(dir, 'claude', pre);
      await hookCall(dir, 'claude', post);
    }
    // a stop at PostToolUseFailure, which Claude Code does not end the session on: left to the next call
    expect(hookState(dir).sessions).toMatchObject([{ stops: 1 }]);
    // the next call under the id of the third, whose PreToolUse was answered
    const next = claudeFailingCall(dir, 's1', 5, 'ls');
    const pre = { ...next.pre, tool_use_id: 'toolu_3' };
    expect((await hookCall(dir, 'claude', pre)).stdout).toContain('"permissionDecision":"deny"');
  });
});
