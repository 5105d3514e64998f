import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookSessionRecord } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { claudeHook } from '../src/hook/claudeHook.js';
import { batchJudgesAnyCall, guardBatch } from '../src/hook/guardBatch.js';
import { guardProject } from '../src/hook/guardProject.js';
import { guardSession } from '../src/hook/guardSession.js';
import { openHookDatabase } from '../src/hook/hookDatabase.js';
import type { HookEvent } from '../src/hook/hookEvent.js';

/**
 * Claude Code's `PostToolBatch` (refused69): once per reply, with every call and its result. Only
 * the calls no `PostToolUse` / `PostToolUseFailure` fed reach the detector, in the reply's order.
 */
const context = { agent: 'claude' as const, detector: {}, record() {}, now: () => 0 };
const EDIT = { file_path: '/p/README.md', old_string: 'nothere', new_string: 'x' };
const REFUSAL = '<tool_use_error>String to replace not found in file.\nString: nothere</tool_use_error>';

/** Claude Code's `PostToolBatch` event with `calls` as `[tool_use_id, tool, input, tool_response]`. */
function batch(calls: Array<[string, string, unknown, unknown]>, dir = '/p') {
  const event = claudeHook.parse(
    {
      session_id: 's1',
      cwd: dir,
      hook_event_name: 'PostToolBatch',
      tool_calls: calls.map(([tool_use_id, tool_name, tool_input, tool_response]) => ({
        tool_use_id,
        tool_name,
        tool_input,
        tool_response,
      })),
    },
    { CLAUDE_PROJECT_DIR: dir },
    dir,
  );
  if (event.kind !== 'after_batch') throw new Error('not a batch');
  return event;
}

const row = (
  next: Omit<HookSessionRecord, 'createdAt' | 'updatedAt'> | undefined,
  before: HookSessionRecord | null,
) => (next === undefined ? before : { ...next, createdAt: 0, updatedAt: 0 });

describe('guardBatch', () => {
  it('reads a call Claude Code refused as the model received it, refused (its one translation)', () => {
    const [call] = batch([['toolu_1', 'Edit', EDIT, REFUSAL]]).calls;
    expect(call).toMatchObject({
      callId: 'toolu_1',
      tool: 'Edit',
      output: REFUSAL,
      error: true,
      refused: true,
    });
  });

  it('feeds nothing, and writes nothing, for a batch whose calls PostToolUse already fed', () => {
    const ran: HookEvent = {
      sessionId: 's1',
      projectDir: '/p',
      eventName: 'PostToolUse',
      callId: 'toolu_1',
      kind: 'after_tool',
      tool: 'Bash',
      input: { command: 'ls' },
      output: 'a\nb',
      error: false,
    };
    const session = row(guardSession(ran, null, context).next, null);
    expect(session?.toolCalls).toBe(1);
    const update = guardBatch(
      batch([['toolu_1', 'Bash', { command: 'ls' }, { stdout: 'a\nb', stderr: '' }]]),
      session,
      context,
    );
    expect(update).toEqual({ result: { kind: 'silent' } });
  });

  it('leaves a call that ran but whose result hook never came to the transcript read: the batch does not say it failed', () => {
    const ran = batch([
      ['toolu_1', 'Bash', { command: 'cat missing.txt' }, 'Exit code 1\ncat: missing.txt: No such file'],
    ]);
    expect(guardBatch(ran, null, context)).toEqual({ result: { kind: 'silent' } });
  });

  it('feeds nothing to a session switched off (its per-session switch)', () => {
    const first = row(guardBatch(batch([['toolu_1', 'Edit', EDIT, REFUSAL]]), null, context).next, null);
    expect(first).not.toBeNull();
    const off = { ...(first as HookSessionRecord), enabled: false };
    expect(guardBatch(batch([['toolu_2', 'Edit', EDIT, REFUSAL]]), off, context)).toEqual({
      result: { kind: 'silent' },
    });
  });

  it('feeds only the calls no hook fed, in order, once: the same refused Edit again and again is nudged, then stopped', () => {
    let session: HookSessionRecord | null = null;
    const replies: string[] = [];
    for (let n = 1; n <= 12; n++) {
      const event = batch([[`toolu_${n}`, 'Edit', EDIT, REFUSAL]]);
      const update = guardBatch(event, session, context);
      session = row(update.next, session);
      replies.push(update.result.kind);
      // the same batch delivered again (a hook entry installed twice) feeds nothing
      expect(guardBatch(event, session, context)).toEqual({ result: { kind: 'silent' } });
      if (update.result.kind === 'stop') break;
    }
    expect(replies).toContain('nudge');
    expect(replies.at(-1)).toBe('stop');
    expect(replies.indexOf('nudge')).toBeLessThan(replies.length - 1);
    expect(session?.toolCalls).toBe(replies.length);
  });

  it('answers a batch whose calls all ran from the event alone: no database opened, none made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-batch-'));
    try {
      const opened: string[] = [];
      const open: typeof openHookDatabase = (projectDir, lockTimeoutMs) => {
        opened.push(projectDir);
        return openHookDatabase(projectDir, lockTimeoutMs);
      };
      const ran = batch(
        [
          ['toolu_1', 'Bash', { command: 'ls' }, { stdout: 'a\nb', stderr: '' }],
          ['toolu_2', 'Bash', { command: 'cat missing.txt' }, 'Exit code 1\ncat: missing.txt: No such file'],
        ],
        dir,
      );
      expect(batchJudgesAnyCall(ran)).toBe(false);
      expect(await guardProject('claude', ran, () => 0, open)).toEqual({ kind: 'silent' });
      expect(opened).toEqual([]);
      expect(existsSync(join(dir, '.loopguard'))).toBe(false);
      // a reply with a call Claude Code refused is judged in the project's database
      const refused = batch([['toolu_3', 'Edit', EDIT, REFUSAL]], dir);
      expect(batchJudgesAnyCall(refused)).toBe(true);
      expect(await guardProject('claude', refused, () => 0, open)).toEqual({ kind: 'silent' });
      expect(opened).toEqual([dir]);
      const database = openHookDatabase(dir, 1000);
      try {
        expect(database.sessions.peek({ agent: 'claude', sessionId: 's1', projectDir: dir })?.toolCalls).toBe(
          1,
        );
      } finally {
        database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
