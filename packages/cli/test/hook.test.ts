import { writeFileSync } from 'node:fs';
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

  it('nudges the same failing command after the call, then denies its next repeat before it runs and ends the session', async () => {
    const dir = tempProject();
    const replies: Array<{ at: 'pre' | 'post'; stdout: string }> = [];
    for (let n = 1; n <= 8 && !replies.some((r) => r.stdout.includes('"continue":false')); n++) {
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      const before = await hookCall(dir, 'claude', pre);
      expect(before.code).toBe(0);
      replies.push({ at: 'pre', stdout: before.stdout });
      if (before.stdout !== '') break;
      const after = await hookCall(dir, 'claude', post);
      expect(after.code).toBe(0);
      replies.push({ at: 'post', stdout: after.stdout });
    }
    const spoken = replies.filter((r) => r.stdout !== '');
    // silent until the nudge (after a call), then silent until the stop (before the next repeat)
    expect(spoken.map((r) => r.at)).toEqual(['post', 'pre']);
    expect(replies.at(-1)).toBe(spoken[1]);
    const nudge = JSON.parse(spoken[0]?.stdout as string);
    expect(nudge.hookSpecificOutput.hookEventName).toBe('PostToolUseFailure');
    expect(nudge.hookSpecificOutput.additionalContext).toMatch(/^Loop detected \(\w+\): /);
    expect(nudge.hookSpecificOutput.additionalContext).toContain('cat missing.txt');
    const stop = JSON.parse(spoken[1]?.stdout as string);
    expect(stop.continue).toBe(false);
    expect(stop.stopReason).toMatch(/^loopguard: Stopped \(\w+\): /);
    expect(stop.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
    expect(stop.hookSpecificOutput.permissionDecisionReason).toContain(
      'loopguard refused this call and ended the session.',
    );

    const { sessions, entries } = hookState(dir);
    // the denied call never ran (story56): the model is told so, and no output of it is quoted
    const ran = Number(sessions[0]?.tool_calls);
    const reason = stop.hookSpecificOutput.permissionDecisionReason as string;
    expect(reason).toMatch(
      new RegExp(
        `^Stopped \\(same_error\\): call ${ran + 1} was refused before it ran: it repeats call ${ran}, with nothing changed since, and the loop went on after the nudge\\.\n`,
      ),
    );
    expect(reason).not.toContain(`- call ${ran + 1}: `);
    expect(reason).not.toContain(`${ran + 1} times`);
    expect(sessions).toMatchObject([{ session_id: 's1', nudges: 1, stops: 1, steps: replies.length + 1 }]);
    expect(entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
    expect(entries[0]?.related_tasks).toEqual(['claude:s1']);
    expect(entries[1]?.metadata).toMatchObject({
      sessionId: 's1',
      agent: 'claude',
      projectDir: dir,
      hookEvent: 'PreToolUse',
      deniedBeforeRun: true,
      runId: 's1',
    });
  });

  it('stops after the call when no PreToolUse answered for it, with the message as context', async () => {
    const dir = tempProject();
    const replies: string[] = [];
    for (let n = 1; n <= 8 && !replies.some((r) => r.includes('"continue":false')); n++) {
      const tool = { tool_name: 'Read', tool_input: { file_path: '/big.txt' }, tool_use_id: `t${n}` };
      const event = claudeEvent(dir, 's2', 'PostToolUse', { ...tool, tool_response: 'x'.repeat(20_000) });
      replies.push((await hookCall(dir, 'claude', event)).stdout);
    }
    const spoken = replies.filter((r) => r !== '').map((r) => JSON.parse(r));
    expect(spoken).toHaveLength(2);
    expect(spoken[0].hookSpecificOutput.additionalContext).toMatch(/^Loop detected/);
    expect(spoken[1]).toMatchObject({
      continue: false,
      hookSpecificOutput: { hookEventName: 'PostToolUse' },
    });
    expect(spoken[1].stopReason).toMatch(/^loopguard: Stopped/);
    expect(spoken[1].hookSpecificOutput.additionalContext).toMatch(/^Stopped/);
  });

  it('keeps sessions apart by session id and by project directory', async () => {
    const dir = tempProject();
    const other = tempProject();
    // alternating sessions in one project: each sees only its own calls
    for (let n = 1; n <= 4; n++) {
      const session = n % 2 === 0 ? 'a' : 'b';
      await hookCall(dir, 'claude', claudeFailingCall(dir, session, n, `cat f${n}.txt`).post);
      await hookCall(other, 'claude', claudeFailingCall(other, 'a', n, `cat f${n}.txt`).post);
    }
    expect(hookState(dir).sessions.map((s) => [s.session_id, s.steps])).toEqual([
      ['b', 4],
      ['a', 4],
    ]);
    expect(hookState(other).sessions.map((s) => [s.session_id, s.steps])).toEqual([['a', 8]]);
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
    // a generous lock timeout: on a loaded machine eight processes queued on the lock could pass
    // the default and fail open, which is the designed behaviour but not what this test is about
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { lockTimeoutMs: 30_000 } }));
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

  it('reads a failing shell command from its exit code, nudges in the tool result, and denies a later repeat', async () => {
    const dir = tempProject();
    const call = { tool_name: 'run_shell_command', tool_input: { command: 'cat missing.txt' } };
    const replies: string[] = [];
    for (let n = 1; n <= 8 && !replies.some((r) => r.includes('"continue":false')); n++) {
      const before = await hookCall(dir, 'gemini', geminiEvent(dir, 'g1', 'BeforeTool', call));
      replies.push(before.stdout);
      if (before.stdout !== '') break;
      const response = {
        llmContent: `<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: ${1000 + n}\n</untrusted_context>`,
        returnDisplay: 'cat: missing.txt: No such file or directory',
      };
      const after = geminiEvent(dir, 'g1', 'AfterTool', { ...call, tool_response: response });
      replies.push((await hookCall(dir, 'gemini', after)).stdout);
    }
    const spoken = replies.filter((r) => r !== '').map((r) => JSON.parse(r));
    expect(spoken).toHaveLength(2);
    expect(spoken[0]).toEqual({
      hookSpecificOutput: {
        hookEventName: 'AfterTool',
        additionalContext: expect.stringMatching(/^Loop detected \(\w+\)/),
      },
    });
    expect(spoken[1]).toMatchObject({
      decision: 'deny',
      continue: false,
      stopReason: expect.stringMatching(/^loopguard: Stopped/),
    });
    expect(spoken[1].reason).toContain('cat missing.txt');
    // the exit code made the result a failure
    expect(
      hookState(dir).entries.map((e) => [e.topic, e.related_tasks[0], e.metadata.evidence.at(-1).error]),
    ).toEqual([
      ['loop_nudge', 'gemini:g1', true],
      ['loop_stop', 'gemini:g1', true],
    ]);
  });
});
