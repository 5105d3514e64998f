import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { claudeEvent, hookState, tempProject } from './hookHelpers.js';

// Claude Code (2.1.330) ends a session on a `continue: false` answered to `PostToolUse`, not to
// `PostToolUseFailure`: there it hands the model the stop and goes on (qa40, with the real CLI). A
// failed rerun after an edit is judged after it ran (nothing foreseen after a change), so the stop
// of the commonest loop, edit and rerun, fell there and ended nothing.

const claude = async (dir: string, event: unknown) =>
  answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir });

/** A Bash call that fails as `cat missing.txt` does, its `PreToolUse` and `PostToolUseFailure` events. */
function failing(dir: string, n: number) {
  const tool = {
    tool_name: 'Bash',
    tool_input: { command: 'cat missing.txt', description: 'Read the file' },
    tool_use_id: `toolu_${n}`,
  };
  return {
    pre: claudeEvent(dir, 's1', 'PreToolUse', tool),
    post: claudeEvent(dir, 's1', 'PostToolUseFailure', {
      ...tool,
      error: 'Exit code 1\ncat: missing.txt: No such file or directory',
      is_interrupt: false,
    }),
  };
}

/** A Bash call of `command` that succeeds without output, its two events. */
async function quiet(dir: string, n: number, command: string) {
  const tool = {
    tool_name: 'Bash',
    tool_input: { command, description: command },
    tool_use_id: `toolu_${n}`,
  };
  const response = { stdout: '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false };
  await claude(dir, claudeEvent(dir, 's1', 'PreToolUse', tool));
  await claude(dir, claudeEvent(dir, 's1', 'PostToolUse', { ...tool, tool_response: response }));
}

/**
 * Call 1 writes, calls 2-4 fail alike (nudged at 4), call 5 writes the same again (silent, no news
 * whatever the agent: a new silent write would be an effect), call 6 fails again after it: the stop.
 */
async function stoppedAfterFailedCall(dir: string): Promise<string> {
  await quiet(dir, 1, 'echo one > one.txt');
  for (const n of [2, 3, 4]) {
    const { pre, post } = failing(dir, n);
    await claude(dir, pre);
    await claude(dir, post);
  }
  await quiet(dir, 5, 'echo one > one.txt');
  const sixth = failing(dir, 6);
  expect(await claude(dir, sixth.pre)).toBe(''); // something changed since: it runs
  return claude(dir, sixth.post);
}

const other = (dir: string, n: number) =>
  claudeEvent(dir, 's1', 'PreToolUse', {
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: `toolu_${n}`,
  });

describe('a stop after a failed call (PostToolUseFailure) ends the session at its next call', () => {
  it('the next call, whatever it is, is denied with the stop and the session ended', async () => {
    const dir = tempProject();
    const after = JSON.parse(await stoppedAfterFailedCall(dir));
    expect(after).toMatchObject({
      continue: false,
      stopReason: expect.stringMatching(/^loopguard: Stopped \(same_error\)/),
    });
    const next = JSON.parse(await claude(dir, other(dir, 7)));
    expect(next).toMatchObject({
      continue: false,
      hookSpecificOutput: { permissionDecision: 'deny' },
    });
    expect(next.hookSpecificOutput.permissionDecisionReason).toMatch(
      /^Stopped \(same_error\): [\s\S]*\nloopguard refused this call and ended the session\.$/,
    );
    // the stop is the one at call 6, recorded once; once carried out, nothing is left pending
    expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 4],
      ['loop_stop', 6],
    ]);
    expect(await claude(dir, other(dir, 8))).toBe('');
  });

  it("the end of the turn drops it: the model's next turn (the user's next prompt) is not denied", async () => {
    const dir = tempProject();
    await stoppedAfterFailedCall(dir);
    await claude(
      dir,
      claudeEvent(dir, 's1', 'Stop', { stop_hook_active: false, last_assistant_message: '' }),
    );
    expect(await claude(dir, other(dir, 7))).toBe('');
  });
});
