import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boundedResult, MAX_RESULT_CHARS } from '../src/hook/boundedResult.js';
import { MAX_EVENT_BYTES } from '../src/hook/readBounded.js';
import { claudeEvent, claudeFailingCall, hookCall, hookLog, hookState, tempProject } from './hookHelpers.js';
import { bin } from './runHelpers.js';

/** A Claude Code `PostToolUse` of `cat big.log` that printed `stdout`. */
const bigResult = (project: string, stdout: string) =>
  claudeEvent(project, 's1', 'PostToolUse', {
    tool_name: 'Bash',
    tool_input: { command: 'cat big.log' },
    tool_response: { stdout, stderr: '', interrupted: false },
  });

describe('a hook call has bounds of its own (issue 26, item 6)', () => {
  it('hands the detector the head, the tail and a fingerprint of a long result', () => {
    const long = `${'a'.repeat(100_000)}MIDDLE${'z'.repeat(100_000)}`;
    const cut = boundedResult(long);
    expect(cut.length).toBeLessThan(MAX_RESULT_CHARS + 200);
    expect(cut.startsWith('a'.repeat(MAX_RESULT_CHARS / 2))).toBe(true);
    expect(cut.endsWith('z'.repeat(MAX_RESULT_CHARS / 2))).toBe(true);
    expect(cut).toContain(`[… ${long.length} characters, sha1 `);
    expect(boundedResult(long)).toBe(cut); // the same output: the same text, a repeat is still seen
    expect(boundedResult(long.replace('MIDDLE', 'MIDDLF'))).not.toBe(cut); // a change anywhere is seen
    expect(boundedResult('short')).toBe('short');
  });

  it('still sees a repeated 5 MB result (and stores only its bounded form)', async () => {
    const project = tempProject();
    const stdout = `${'line of a very long log\n'.repeat(220_000)}`;
    const replies: string[] = [];
    for (let n = 0; n < 3; n++)
      replies.push((await hookCall(project, 'claude', bigResult(project, stdout))).stdout);
    expect(replies.join('')).toContain('Loop detected');
    const [session] = hookState(project).sessions;
    expect(String(session?.last_results).length).toBeLessThan(100_000);
    expect(hookLog(project)).toEqual([]);
  });

  it(`fails open, without parsing it, on an event larger than ${MAX_EVENT_BYTES} bytes`, async () => {
    const project = tempProject();
    const event = JSON.stringify(bigResult(project, 'x'.repeat(MAX_EVENT_BYTES)));
    const result = await hookCall(project, 'claude', event, { CLAUDE_PROJECT_DIR: project });
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(hookLog(project)).toEqual([
      expect.stringMatching(/claude: failed open: the event is larger than 67108864 bytes$/),
    ]);
  });

  it('fails open at its own deadline when the event never ends', async () => {
    const project = tempProject();
    const call = execa(process.execPath, [bin, 'hook', 'claude'], {
      cwd: project,
      reject: false,
      timeout: 60_000,
      env: { LOOPGUARD_HOOK_DEADLINE_MS: '2500', CLAUDE_PROJECT_DIR: '', LOOPGUARD_HOOK: '' },
    });
    call.stdin?.write('{"session_id": "s1", ');
    const result = await call;
    call.stdin?.destroy();
    expect(result).toMatchObject({ exitCode: 0, stdout: '', timedOut: false });
    expect(hookLog(project)).toEqual([
      expect.stringMatching(/claude: failed open: no answer within the hook's deadline of 2500 ms$/),
    ]);
  });

  // A repository's `.claude/settings.json` hands its `env` to every hook: a deadline no call can
  // meet switched loopguard off unseen (no notice, the status line "watching", init "guards").
  it('trust48: a deadline too short to answer in is no off switch: the loop is still nudged and stopped', async () => {
    const project = tempProject();
    const replies: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const { pre, post } = claudeFailingCall(project, 's1', n);
      for (const event of [pre, post])
        replies.push((await hookCall(project, 'claude', event, { LOOPGUARD_HOOK_DEADLINE_MS: '1' })).stdout);
    }
    expect(replies[5]).toContain('Loop detected (same_error)');
    expect(replies[6]).toContain('"permissionDecision":"deny"');
    expect(hookLog(project)).toEqual([]);
  });

  it.skipIf(!existsSync('/proc/1'))(
    'fails open at once for a project under /proc, where a recursive mkdir never returns',
    async () => {
      const result = await execa(process.execPath, [bin, 'hook', 'claude'], {
        cwd: '/',
        reject: false,
        timeout: 60_000, // a bound for the old behaviour (a spin until killed), not a measurement
        input: JSON.stringify(bigResult('/proc/1', 'x')),
        env: { CLAUDE_PROJECT_DIR: '', LOOPGUARD_HOOK: '' },
      });
      expect(result).toMatchObject({ exitCode: 0, stdout: '', timedOut: false });
    },
  );
});
