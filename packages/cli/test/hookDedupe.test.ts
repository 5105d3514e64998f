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
