import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { hookLog, hookState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';

// A real Claude Code, offline against a scripted Messages API on 127.0.0.1, with loopguard's hooks
// installed by `loopguard init claude --project` in a temporary repository.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

/**
 * How the hooks are installed: `command` (`init claude --project`: a node process per call) or
 * `resident` (`init claude --resident`: http hooks to the user's resident process, in the user's
 * settings file of a temporary HOME).
 */
type Mode = 'command' | 'resident';

/** Runs `claude -p` in a fresh repository with loopguard's hooks; returns what the model received. */
async function claudeWithHooks(script: (turn: number) => ScriptedTurn, mode: Mode = 'command') {
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
  const init = await loopguard(dir, ['init', 'claude', mode === 'resident' ? '--resident' : '--project'], {
    HOME: home,
  });
  expect(init.code, init.stderr).toBe(0);
  // the CLI runs entries that carry loopguard's marker (an extra key in the hook entry)
  const settings =
    mode === 'resident' ? join(home, '.claude', 'settings.json') : join(dir, '.claude', 'settings.json');
  expect(readFileSync(settings, 'utf8')).toContain('"loopguard": {');
  const api = await startFakeAnthropicApi(script);
  try {
    const result = await execa(
      claude,
      ['-p', 'Fix the bug.', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
      {
        cwd: dir,
        reject: false,
        stdin: 'ignore',
        timeout: 240_000,
        env: {
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'test',
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          HOME: home,
          LOOPGUARD_HOOK: '',
          ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
        },
      },
    );
    const lines = String(result.stdout)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const resultLine = lines.find((line) => line.type === 'result') ?? {};
    const projects = join(home, '.claude', 'projects');
    const transcript = readdirSync(projects, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => readFileSync(join(projects, file), 'utf8'))
      .join('\n');
    return {
      dir,
      home,
      result,
      resultLine,
      transcript,
      received: api.conversations.map((c) => JSON.stringify(c)),
    };
  } finally {
    await api.close();
    // The resident exits by itself once Claude Code is gone; the test does not wait for that.
    if (mode === 'resident') await loopguard(dir, ['resident', 'stop'], { HOME: home });
  }
}

const failing: ScriptedTurn = {
  tool: 'Bash',
  input: { command: 'cat missing.txt', description: 'Read the file' },
};

describe.each<Mode>(['command', 'resident'])(
  'loopguard hook with a real Claude Code (offline), %s mode',
  (mode) => {
    it('nudges a model that runs the same failing command (the nudge is in its next request), then denies the repeat and ends the session', async () => {
      const { dir, result, resultLine, transcript, received } = await claudeWithHooks(() => failing, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // the call that is nudged fails once more; the request after it carries the nudge
      const nudged = received.findIndex((r) => r.includes('Loop detected'));
      expect(nudged).toBeGreaterThan(0);
      expect(received[nudged]).toMatch(/hook additional context: Loop detected \(\w+\): /);
      expect(received[nudged]).toContain('cat missing.txt');
      // the model calls it again: denied before it runs, and the session ends (no further request)
      expect(received).toHaveLength(nudged + 1);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      expect(transcript).toMatch(/hook stopped continuation: loopguard: Stopped \(\w+\): /);
      const { sessions, entries } = hookState(dir);
      expect(entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
      expect(entries[1]?.metadata).toMatchObject({
        agent: 'claude',
        deniedBeforeRun: true,
        sessionId: sessions[0]?.session_id,
      });
      expect(hookLog(dir)).toEqual([]);
    }, 600_000);

    it('never nudges a model that makes progress', async () => {
      const script = (turn: number): ScriptedTurn =>
        [
          { tool: 'Bash', input: { command: 'echo one > one.txt', description: 'Write one' } },
          { tool: 'Bash', input: { command: 'echo two > two.txt', description: 'Write two' } },
          { tool: 'Bash', input: { command: 'cat one.txt two.txt', description: 'Check them' } },
          { tool: 'Bash', input: { command: 'test -f one.txt && test -f two.txt', description: 'Test' } },
        ][turn] ?? { text: 'Both files are written.' };
      const { dir, result, resultLine, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'Both files are written.' });
      expect(received).toHaveLength(5);
      expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
      expect(hookState(dir).sessions).toMatchObject([{ steps: 9, nudges: 0, stops: 0 }]);
      expect(hookState(dir).entries).toEqual([]);
    }, 600_000);

    it('lets a model that makes loopguard’s database unreadable mid-session complete (fail open)', async () => {
      const script = (turn: number): ScriptedTurn =>
        turn === 0
          ? { tool: 'Bash', input: { command: 'echo hi', description: 'Say hi' } }
          : turn === 1
            ? {
                tool: 'Bash',
                input: {
                  command:
                    'rm -f .loopguard/state.db-wal .loopguard/state.db-shm && echo garbage > .loopguard/state.db',
                  description: 'Break the database',
                },
              }
            : turn < 7
              ? failing
              : { text: 'Done anyway.' };
      const { dir, result, resultLine, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'Done anyway.' });
      expect(received).toHaveLength(8);
      expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
      const log = hookLog(dir);
      expect(log.length).toBeGreaterThanOrEqual(5);
      for (const line of log)
        expect(line).toMatch(
          /claude (PreToolUse|PostToolUse|PostToolUseFailure|Stop) session=\S+: failed open: .*state\.db/,
        );
    }, 600_000);
  },
);

describe('the resident process with a real Claude Code (offline)', () => {
  it('lets the session complete unguarded when the resident process is killed mid-session (fail open)', async () => {
    // The model's first command kills the resident process (SIGKILL, its pid from its own /health).
    const kill =
      "node -e \"const c = require(process.env.HOME + '/.loopguard/resident.json'); fetch('http://127.0.0.1:' + c.port + '/health', { headers: { authorization: 'Bearer ' + c.token } }).then((r) => r.json()).then((h) => process.kill(h.pid, 'SIGKILL'))\"";
    const script = (turn: number): ScriptedTurn =>
      turn === 0
        ? { tool: 'Bash', input: { command: kill, description: 'Kill the resident' } }
        : turn < 6
          ? failing
          : { text: 'Done anyway.' };
    const { dir, home, result, resultLine, received } = await claudeWithHooks(script, 'resident');
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(resultLine).toMatchObject({ subtype: 'success', result: 'Done anyway.' });
    // five identical failures, never nudged nor stopped: nothing answered the hooks
    expect(received).toHaveLength(7);
    expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
    // What Claude Code 2.1.330 does when an http hook cannot connect (docs/hooks.md): a warning
    // event for each unchecked tool call, a notification for the Stop hook, a line on stderr, and
    // the session goes on.
    expect(String(result.stdout)).toContain('"tag":"hook_no_verdict"');
    expect(String(result.stdout)).toContain('"key":"stop-hook-error"');
    expect(String(result.stderr)).toMatch(
      /SessionEnd hook \[http:\/\/127\.0\.0\.1:\d+\/hook\/claude\] failed: connect ECONNREFUSED/,
    );
    // the only event answered before the kill was the kill's PreToolUse, which writes nothing
    expect(hookState(dir).sessions).toEqual([]);
    expect(readFileSync(join(home, '.loopguard', 'resident.log'), 'utf8')).toMatch(
      /listening on 127\.0\.0\.1:/,
    );
  }, 600_000);
});
