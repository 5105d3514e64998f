import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  claudeEvent,
  claudeFailingCall,
  geminiEvent,
  hookCall,
  hookLog,
  hookState,
  recordedEvents,
  tempProject,
} from './hookHelpers.js';

describe('loopguard hook claude', () => {
  it('stays silent on the recorded events of a real Claude Code 2.1.330 session that makes progress', async () => {
    const dir = tempProject();
    for (const event of recordedEvents('claude-code-2.1.330.jsonl', dir, 'recorded')) {
      expect(await hookCall(dir, 'claude', event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(hookLog(dir)).toEqual([]);
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([
      { agent: 'claude', session_id: 'recorded', project_dir: dir, steps: 5, nudges: 0 },
    ]);
    expect(entries).toEqual([]);
  });

  it('nudges the same failing command on its 2nd failure in a row, then denies the 3rd before it runs and ends the session', async () => {
    const dir = tempProject();
    const replies: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      const before = await hookCall(dir, 'claude', pre);
      expect(before.code).toBe(0);
      replies.push(before.stdout);
      if (before.stdout !== '') break;
      const after = await hookCall(dir, 'claude', post);
      expect(after.code).toBe(0);
      replies.push(after.stdout);
    }
    // pre/post of call 1 and pre 2 silent, post 2 nudges (the same failure twice in a row), pre 3 stops
    // (stopAfter 1: the first hit after the nudge)
    expect(replies.map((r) => (r === '' ? '' : Object.keys(JSON.parse(r)).join(',')))).toEqual([
      '',
      '',
      '',
      'hookSpecificOutput',
      'continue,stopReason,hookSpecificOutput',
    ]);
    const nudge = JSON.parse(replies[3] as string);
    expect(nudge.hookSpecificOutput.hookEventName).toBe('PostToolUseFailure');
    expect(nudge.hookSpecificOutput.additionalContext).toMatch(
      /^Loop detected \(same_error\): the same action failed with the same error 2 times/,
    );
    expect(nudge.hookSpecificOutput.additionalContext).toContain('cat missing.txt');
    const stop = JSON.parse(replies[4] as string);
    expect(stop.continue).toBe(false);
    expect(stop.stopReason).toMatch(/^loopguard: Stopped \(same_error\): the loop went on after the nudge/);
    expect(stop.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
    expect(stop.hookSpecificOutput.permissionDecisionReason).toContain(
      'loopguard refused this call and ended the session.',
    );

    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([{ session_id: 's1', nudges: 1, stops: 1, steps: 6 }]);
    expect(entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
    expect(entries[0]?.related_tasks).toEqual(['claude:s1']);
    expect(entries[1]?.metadata).toMatchObject({
      sessionId: 's1',
      agent: 'claude',
      projectDir: dir,
      hookEvent: 'PreToolUse',
      loopType: 'same_error',
      deniedBeforeRun: true,
      runId: 's1',
    });
  });

  it('stops after the call when no PreToolUse answered for it, with the message as context', async () => {
    const dir = tempProject();
    const replies = [];
    for (let n = 1; n <= 4; n++) {
      const tool = { tool_name: 'Read', tool_input: { file_path: '/big.txt' }, tool_use_id: `t${n}` };
      const event = claudeEvent(dir, 's2', 'PostToolUse', { ...tool, tool_response: 'x'.repeat(20_000) });
      replies.push((await hookCall(dir, 'claude', event)).stdout);
    }
    expect(replies.slice(0, 1)).toEqual(['']);
    expect(JSON.parse(replies[1] as string).hookSpecificOutput.additionalContext).toContain(
      'Loop detected (repeated_action)',
    );
    const stop = JSON.parse(replies[2] as string);
    expect(stop).toMatchObject({ continue: false, hookSpecificOutput: { hookEventName: 'PostToolUse' } });
    expect(stop.stopReason).toContain('Stopped (repeated_action)');
    expect(stop.hookSpecificOutput.additionalContext).toContain('Stopped (repeated_action)');
  });

  it('keeps sessions apart by session id and by project directory', async () => {
    const dir = tempProject();
    const other = tempProject();
    // b's two failures are in a row for b (a's call between belongs to another session): b is nudged
    const replies = [];
    for (let n = 1; n <= 3; n++) {
      const session = n % 2 === 0 ? 'a' : 'b';
      replies.push((await hookCall(dir, 'claude', claudeFailingCall(dir, session, n).post)).stdout);
      if (n < 3)
        expect((await hookCall(other, 'claude', claudeFailingCall(other, 'a', n).post)).code).toBe(0);
    }
    expect(replies.map((r) => r !== '')).toEqual([false, false, true]);
    expect(hookState(dir).sessions.map((s) => [s.session_id, s.steps])).toEqual([
      ['b', 4],
      ['a', 2],
    ]);
    expect(hookState(other).entries.map((e) => e.topic)).toEqual(['loop_nudge']);
  });

  it('uses CLAUDE_PROJECT_DIR over the event cwd (the agent may have cd-ed into a subdirectory)', async () => {
    const dir = tempProject();
    const event = claudeFailingCall(join(dir, 'sub'), 's3', 1).post;
    expect((await hookCall(dir, 'claude', event, { CLAUDE_PROJECT_DIR: dir })).code).toBe(0);
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's3', project_dir: dir }]);
  });

  it('records a chanting final message at Stop without a reply (the turn is over)', async () => {
    const dir = tempProject();
    const text = 'I will fix the parser now.\n'.repeat(40);
    const result = await hookCall(
      dir,
      'claude',
      claudeEvent(dir, 's4', 'Stop', { last_assistant_message: text, stop_hook_active: false }),
    );
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(hookState(dir).entries).toMatchObject([
      { topic: 'loop_nudge', metadata: { loopType: 'chanting', hookEvent: 'Stop' } },
    ]);
  });

  it('loses no update when hook processes of one session run at once (parallel tool calls)', async () => {
    const dir = tempProject();
    await hookCall(dir, 'claude', claudeFailingCall(dir, 'p', 0, 'cat first.txt').post); // creates the database
    await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        hookCall(dir, 'claude', claudeFailingCall(dir, 'p', n + 1, `cat f${n}.txt`).post),
      ),
    );
    expect(hookLog(dir)).toEqual([]);
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 'p', steps: 18 }]);
  });
});

describe('loopguard hook gemini', () => {
  it('stays silent on the recorded events of a real Gemini CLI 0.61.0 session', async () => {
    const dir = tempProject();
    for (const event of recordedEvents('gemini-cli-0.61.0.jsonl', dir, 'recorded')) {
      expect(await hookCall(dir, 'gemini', event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(hookLog(dir)).toEqual([]);
    expect(hookState(dir).sessions).toMatchObject([{ agent: 'gemini', steps: 5 }]);
  });

  it('reads a failing shell command from its exit code, nudges in the tool result, and denies the 3rd call', async () => {
    const dir = tempProject();
    const call = { tool_name: 'run_shell_command', tool_input: { command: 'cat missing.txt' } };
    const replies: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const before = await hookCall(dir, 'gemini', geminiEvent(dir, 'g1', 'BeforeTool', call));
      replies.push(before.stdout);
      if (before.stdout !== '') break;
      const response = {
        llmContent: `<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: ${1000 + n}\n</untrusted_context>`,
        returnDisplay: 'cat: missing.txt: No such file or directory',
      };
      replies.push(
        (
          await hookCall(
            dir,
            'gemini',
            geminiEvent(dir, 'g1', 'AfterTool', { ...call, tool_response: response }),
          )
        ).stdout,
      );
    }
    const nudge = JSON.parse(replies[3] as string);
    expect(nudge).toEqual({
      hookSpecificOutput: {
        hookEventName: 'AfterTool',
        additionalContext: expect.stringMatching(/^Loop detected \(same_error\)/),
      },
    });
    const stop = JSON.parse(replies[4] as string);
    expect(stop).toMatchObject({
      decision: 'deny',
      continue: false,
      stopReason: expect.stringMatching(/^loopguard: Stopped \(same_error\)/),
    });
    expect(stop.reason).toContain('cat missing.txt');
    expect(hookState(dir).entries.map((e) => [e.topic, e.related_tasks[0]])).toEqual([
      ['loop_nudge', 'gemini:g1'],
      ['loop_stop', 'gemini:g1'],
    ]);
  });
});
