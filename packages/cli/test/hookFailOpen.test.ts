import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FNV_SEAL_CHECKSUM } from '@loopguard/core/steps';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { claudeEvent, claudeFailingCall, hookCall, hookLog, hookState, tempProject } from './hookHelpers.js';

/** Every failure: exit 0, nothing on stdout or stderr, one line in .loopguard/hook.log. */
async function expectFailOpen(
  dir: string,
  agent: string,
  event: unknown,
  reason: RegExp,
  env: Record<string, string> = {},
) {
  const before = hookLog(dir).length;
  expect(await hookCall(dir, agent, event, env)).toEqual({ code: 0, stdout: '', stderr: '' });
  const lines = hookLog(dir);
  expect(lines).toHaveLength(before + 1);
  expect(lines.at(-1)).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \w+.*: failed open: /);
  expect(lines.at(-1)).toMatch(reason);
}

/** The same command failing again and again (after-call events only): the replies up to the first that is not silent, at most 8. */
async function loopUntilNudge(dir: string, session: string, command = 'cat missing.txt') {
  const replies: string[] = [];
  for (let n = 1; n <= 8 && !replies.some((r) => r !== ''); n++) {
    replies.push((await hookCall(dir, 'claude', claudeFailingCall(dir, session, n, command).post)).stdout);
  }
  return replies;
}

/** How many failures a fresh project takes to be nudged (the detector's defaults decide). */
async function callsToNudge(): Promise<number> {
  const replies = await loopUntilNudge(tempProject(), 'fresh');
  expect(replies.at(-1)).toContain('Loop detected');
  return replies.length;
}

describe('loopguard hook fails open', () => {
  it('on a corrupt database: the hook keeps answering nothing, and loopguard does not touch the file', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.loopguard'));
    writeFileSync(join(dir, '.loopguard', 'state.db'), 'this is not a database, it is '.repeat(200));
    await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 1).post, /state\.db/);
    await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 2).pre, /state\.db/);
  });

  it('on a database that cannot be created (a directory in its place)', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.loopguard', 'state.db'), { recursive: true });
    // a refused state.db is told to the user once a session (trust44): the next call is silent
    await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).pre);
    await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 1).post, /it is a directory/);
  });

  it('on a database removed mid-session: a new one is started and the session starts afresh', async () => {
    const dir = tempProject();
    const calls = await callsToNudge();
    await loopUntilNudge(dir, 's');
    rmSync(join(dir, '.loopguard', 'state.db'));
    const again = await loopUntilNudge(dir, 's');
    expect(again).toHaveLength(calls);
    expect(again.at(-1)).toContain('Loop detected');
    expect(hookLog(dir)).toEqual([]);
  });

  it('on a database locked past lockTimeoutMs by another process', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { lockTimeoutMs: 100 } }));
    await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post);
    const holder = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    holder.db.exec('BEGIN EXCLUSIVE');
    try {
      await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 2).post, /locked|busy/i);
    } finally {
      holder.db.exec('ROLLBACK');
      holder.close();
    }
    expect(hookState(dir).sessions).toMatchObject([{ steps: 2 }]);
  });

  it('not at all for a call about to run that repeats nothing: answered while another holds the lock', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { lockTimeoutMs: 100 } }));
    await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post);
    const holder = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    holder.db.exec('BEGIN IMMEDIATE');
    try {
      const fresh = claudeFailingCall(dir, 's', 2, 'cat another.txt').pre;
      expect(await hookCall(dir, 'claude', fresh)).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(hookLog(dir)).toEqual([]);
      // A repeat of a remembered action is judged, in the session's transaction: it waits for the lock.
      await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 3).pre, /locked|busy/i);
    } finally {
      holder.db.exec('ROLLBACK');
      holder.close();
    }
    expect(hookState(dir).sessions).toMatchObject([{ steps: 2 }]);
  });

  it('on a malformed event: not JSON, not an object, a missing field', async () => {
    const dir = tempProject();
    await expectFailOpen(dir, 'claude', 'not json {', /the event is not JSON/);
    await expectFailOpen(dir, 'claude', '[1, 2]', /must be a JSON object/);
    const { session_id: _missing, ...noSession } = claudeFailingCall(dir, 's', 1).post;
    await expectFailOpen(dir, 'claude', noSession, /session_id/);
    await expectFailOpen(
      dir,
      'gemini',
      { hook_event_name: 'AfterTool', session_id: 's', cwd: dir },
      /tool_name/,
    );
  });

  it('on an unknown event', async () => {
    const dir = tempProject();
    await expectFailOpen(
      dir,
      'claude',
      claudeEvent(dir, 's', 'Notification', { message: 'hi' }),
      /unknown Claude Code event "Notification"/,
    );
    await expectFailOpen(
      dir,
      'gemini',
      claudeEvent(dir, 's', 'PreToolUse'),
      /unknown Gemini CLI event "PreToolUse"/,
    );
  });

  it('but an unknown agent is not silent: one line on stderr and exit 1, which no CLI reads as allow or block (trust51)', async () => {
    // `loopguard hook cursor` in a settings file guards nothing: an off switch nobody would see
    const dir = tempProject();
    for (const agent of ['cursor', 'Claude', '']) {
      const result = await hookCall(dir, agent, claudeFailingCall(dir, 's', 1).post);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `loopguard: hook: unknown agent ${JSON.stringify(agent)} (expected claude, gemini or codex): this call is not guarded`, // (execa drops the final newline)
      );
    }
    expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(false);
  });

  it('qa64: run by hand with a terminal as stdin, says what it is in one line, exit 1, without waiting for its deadline', async () => {
    // a user trying `loopguard hook claude` at the prompt saw nothing for 8 s (the deadline), then a
    // "failed open" line in the project's hook.log; no agent CLI gives a hook a terminal as stdin
    const { runHook } = await import('../src/hook/runHook.js');
    const dir = tempProject();
    let read = false;
    let err = '';
    const code = await runHook('claude', {
      readStdin: async () => {
        read = true;
        return '';
      },
      stdinIsTerminal: true,
      stdout: () => {},
      stderr: (text) => {
        err += text;
      },
      env: {},
      cwd: dir,
    });
    expect([code, read]).toEqual([1, false]);
    expect(err).toBe(
      'loopguard: hook claude reads one hook event on stdin, as Claude Code sends it (loopguard init claude installs it; docs/hooks.md): stdin is a terminal, so this call guards nothing\n',
    );
    expect(hookLog(dir)).toEqual([]);
  });

  it('on a bad configuration, naming the option', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { repeatThreshold: 1 } }));
    await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 1).post, /repeatThreshold/);
    writeFileSync(join(dir, 'loopguard.config.json'), '{ broken');
    await expectFailOpen(dir, 'claude', claudeFailingCall(dir, 's', 1).post, /JSON/);
  });

  it('on a session row that cannot be read (snapshot, last results): the session starts afresh instead', async () => {
    const dir = tempProject();
    const calls = await callsToNudge();
    await loopUntilNudge(dir, 's');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    database.db
      .prepare(
        `UPDATE hook_sessions SET snapshot = '{"format":"loopguard.step-detector","version":1}', last_results = '{"not":"a list"}'`,
      )
      .run();
    database.close();
    const again = await loopUntilNudge(dir, 's');
    expect(again).toHaveLength(calls);
    expect(again.at(-1)).toContain('Loop detected');
  });

  it('on a session row whose texts are not JSON at all (the store keeps them as written): the session starts afresh', async () => {
    const dir = tempProject();
    const calls = await callsToNudge();
    await loopUntilNudge(dir, 's');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    database.db
      .prepare(`UPDATE hook_sessions SET snapshot = '{"seal":"3.3 sha256:', last_results = 'not json {'`)
      .run();
    database.close();
    const again = await loopUntilNudge(dir, 's');
    expect(again).toHaveLength(calls);
    expect(again.at(-1)).toContain('Loop detected');
    expect(hookLog(dir)).toEqual([]);
  });

  it('on a sealed snapshot changed after the hook wrote it: validated like any input, the session starts afresh', async () => {
    const dir = tempProject();
    const calls = await callsToNudge();
    await loopUntilNudge(dir, 's');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    const row = database.db.prepare('SELECT snapshot FROM hook_sessions').get() as { snapshot: string };
    expect(row.snapshot.startsWith('{"seal":"')).toBe(true);
    // The seal still reads as this build's, but the text under it was changed: not trusted.
    const changed = row.snapshot.replace(/"steps":\d+/, '"steps":-1');
    expect(changed).not.toBe(row.snapshot);
    database.db.prepare(`UPDATE hook_sessions SET snapshot = ?, last_results = '[]'`).run(changed);
    database.close();
    const again = await loopUntilNudge(dir, 's');
    expect(again).toHaveLength(calls);
    expect(again.at(-1)).toContain('Loop detected');
  });

  it('on a snapshot an older build sealed (its JavaScript checksum, no name): validated, not trusted', async () => {
    const dir = tempProject();
    const calls = await callsToNudge();
    await loopUntilNudge(dir, 's');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    const row = database.db.prepare('SELECT snapshot FROM hook_sessions').get() as { snapshot: string };
    expect(row.snapshot).toMatch(/^\{"seal":"\d+\.\d+ sha256:[0-9a-f]{64}","state":/);
    // The same session as a build before checksums were named would have sealed it, its text
    // changed under a seal that matches it: a build that took that seal's word would resume the loop.
    const [, stamp, body] = /^\{"seal":"([\d.]+) [^"]*","state":(.*)\}$/s.exec(row.snapshot) ?? [];
    const changed = (body as string).replace(/"steps":\d+/, '"steps":-1');
    // a build before checksums were named sealed with core's own (64-bit FNV-1a), its name not written
    const former = `{"seal":"${stamp} ${FNV_SEAL_CHECKSUM.digest(changed)}","state":${changed}}`;
    database.db.prepare(`UPDATE hook_sessions SET snapshot = ?, last_results = '[]'`).run(former);
    database.close();
    const again = await loopUntilNudge(dir, 's');
    expect(again).toHaveLength(calls);
    expect(again.at(-1)).toContain('Loop detected');
  });
});

describe('loopguard hook switches', () => {
  it('LOOPGUARD_HOOK=off silences one session: nothing stored', async () => {
    const dir = tempProject();
    for (let n = 1; n <= 4; n++) {
      expect(
        await hookCall(dir, 'claude', claudeFailingCall(dir, 's', n).post, { LOOPGUARD_HOOK: 'off' }),
      ).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(hookLog(dir)).toEqual([]);
    expect(() => hookState(dir)).toThrow();
  });

  it('hook.enabled: false in the project configuration silences every session', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
    expect(await loopUntilNudge(dir, 's')).toEqual(Array(8).fill(''));
    expect(() => hookState(dir)).toThrow();
  });

  it('hook_sessions.enabled = 0 silences one session', async () => {
    const dir = tempProject();
    await hookCall(dir, 'claude', claudeFailingCall(dir, 's', 1).post);
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    database.db.prepare("UPDATE hook_sessions SET enabled = 0 WHERE session_id = 's'").run();
    database.close();
    expect(await loopUntilNudge(dir, 's')).toEqual(Array(8).fill(''));
    expect(hookState(dir).sessions).toMatchObject([{ steps: 2, enabled: 0 }]);
  });

  it('thresholds and exemptions come from the project configuration', async () => {
    const calls = await callsToNudge();
    const dir = tempProject();
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'hook:\n  sameErrorThreshold: 7\n  verbatimThreshold: 7\n  repeatThreshold: 7\n  exemptCommands: ["^cat ignored"]\n',
    );
    const later = await loopUntilNudge(dir, 's');
    expect(later.length).toBeGreaterThan(calls);
    expect(await loopUntilNudge(dir, 'e', 'cat ignored.txt')).toEqual(Array(8).fill(''));
  });
});
