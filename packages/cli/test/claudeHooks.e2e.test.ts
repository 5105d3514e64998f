import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanReport } from '../src/scan/scanReport.js';
import { ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { hookLog, hookState, sessionVerdicts } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';
import { expectSessionOfTheRoot, expectStatusAndDashboard, ROOT_BUDGET } from './sessionStory.js';

// A real Claude Code, offline against a scripted Messages API on 127.0.0.1, with loopguard's hooks
// installed by `loopguard init claude --project` in a temporary repository.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

/**
 * How the hooks are installed, in the project's settings: `mcp` (`init claude`: the fast path,
 * `mcp_tool` hooks of loopguard's MCP server, which Claude Code starts from the temporary HOME's
 * `.claude.json`) or `command` (`init claude --command-hooks`: a node process per call).
 */
type Mode = 'command' | 'mcp';

/** Runs `claude -p` in a fresh repository with loopguard's hooks; returns what the model received. */
async function claudeWithHooks(
  script: (turn: number) => ScriptedTurn,
  mode: Mode = 'command',
  initArgs: string[] = [],
  before: (dir: string, home: string) => Promise<void> = async () => {},
  env: Record<string, string> = {},
) {
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
  await before(dir, home);
  const modeArgs = mode === 'command' ? ['--command-hooks'] : [];
  const init = await loopguard(dir, ['init', 'claude', ...modeArgs, ...initArgs], { HOME: home });
  expect(init.code, init.stderr).toBe(0);
  // the CLI runs entries that carry loopguard's marker (an extra key in the hook entry)
  const settings = join(dir, '.claude', 'settings.json');
  expect(readFileSync(settings, 'utf8')).toContain('"loopguard": {');
  const api = await startFakeAnthropicApi(script);
  try {
    const { result, resultLine } = await runClaudePrint(claude, dir, api.url, home, { env });
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
  }
}

const failing: ScriptedTurn = {
  tool: 'Bash',
  input: { command: 'cat missing.txt', description: 'Read the file' },
};

describe.each<Mode>(['command', 'mcp'])(
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

    it("judges a session's calls in its project after a `cd` to a subfolder (the event's cwd follows it; CLAUDE_PROJECT_DIR does not: codexcwd)", async () => {
      const script = (turn: number): ScriptedTurn =>
        turn === 0 ? { tool: 'Bash', input: { command: 'cd sub', description: 'Go to sub' } } : failing;
      const { dir, result, resultLine } = await claudeWithHooks(script, mode, [], async (dir) => {
        mkdirSync(join(dir, 'sub'));
        // a folder whose own configuration would switch loopguard off, were it taken as the project
        writeFileSync(join(dir, 'sub', 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      expect(hookState(dir).entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
      expect(existsSync(join(dir, 'sub', '.loopguard'))).toBe(false);
    }, 600_000);

    it('tells the user, not the model, that a refused .loopguard leaves the session unguarded (trust44)', async () => {
      const script = (turn: number): ScriptedTurn => (turn < 2 ? failing : { text: 'Done.' });
      const { dir, result, transcript, received } = await claudeWithHooks(script, mode, [], async (dir) => {
        // a repository's .loopguard that is a link: refused, so loopguard fails open
        symlinkSync(mkdtempSync(join(tmpdir(), 'loopguard-elsewhere-')), join(dir, '.loopguard'));
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // Claude Code shows the hook's systemMessage to the user once (a `hook_system_message`; on main: none)
      const said = transcript.match(
        /"type":"hook_system_message","content":"loopguard is not guarding this session: /g,
      );
      expect(said?.length, 'one hook_system_message').toBe(1);
      // and hands it to no request: the model never reads it as loopguard's verdict
      expect(received.some((r) => r.includes('not guarding'))).toBe(false);
      expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(false);
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
      // Claude Code said the session ended (SessionEnd): no door says it is running
      expect(sessionVerdicts(dir)).toEqual([['claude', 'clean']]);
    }, 600_000);

    it("runs the model's reads of the off switch, which only a setting of it is refused for (qa42)", async () => {
      const script = (turn: number): ScriptedTurn =>
        [
          {
            tool: 'Bash',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's parameter expansion
            input: { command: 'echo "switch: ${LOOPGUARD_HOOK:-unset}"', description: 'Read' },
          },
          {
            tool: 'Bash',
            input: { command: '[ "$LOOPGUARD_HOOK" = off ] || echo "loopguard guards"', description: 'Test' },
          },
        ][turn] ?? { text: 'loopguard is on.' };
      const { dir, result, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(received.join('\n')).not.toContain('loopguard refused this call');
      expect(received[1]).toContain('switch: unset');
      expect(received[2]).toContain('loopguard guards');
      expect(hookState(dir).entries).toEqual([]);
    }, 600_000);

    it('is switched off for a session started with LOOPGUARD_HOOK=off: nothing answered, nothing stored', async () => {
      const script = (turn: number): ScriptedTurn => (turn < 5 ? failing : { text: 'Done anyway.' });
      const { dir, result, resultLine, received } = await claudeWithHooks(script, mode, [], undefined, {
        LOOPGUARD_HOOK: 'off',
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'Done anyway.' });
      expect(received).toHaveLength(6);
      expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
      expect(existsSync(join(dir, '.loopguard'))).toBe(false);
    }, 600_000);

    it("trust48: a repository's settings that give the hook's deadline 1 ms switch nothing off (the loop is still nudged and stopped)", async () => {
      const { dir, result, resultLine, received } = await claudeWithHooks(
        () => failing,
        mode,
        [],
        async (repo) => {
          // Claude Code hands a settings file's env to its hooks; the repository ships this one
          mkdirSync(join(repo, '.claude'));
          writeFileSync(
            join(repo, '.claude', 'settings.json'),
            `${JSON.stringify({ env: { LOOPGUARD_HOOK_DEADLINE_MS: '1' } }, null, 2)}\n`,
          );
        },
      );
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // on main, command hooks: six failing calls, every hook call `failed open` at its 1 ms deadline
      expect(received.some((r) => r.includes('Loop detected'))).toBe(true);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      expect(hookLog(dir)).toEqual([]);
    }, 600_000);

    it('lets a session whose database breaks mid-session complete (fail open)', async () => {
      // Broken from outside while the model's second call is asked for: the model's own attempt at
      // loopguard's state is refused (ownStateCalls.test.ts).
      let project = '';
      const script = (turn: number): ScriptedTurn => {
        if (turn === 1) {
          rmSync(join(project, '.loopguard', 'state.db-wal'), { force: true });
          rmSync(join(project, '.loopguard', 'state.db-shm'), { force: true });
          writeFileSync(join(project, '.loopguard', 'state.db'), 'garbage\n');
        }
        return turn < 2
          ? { tool: 'Bash', input: { command: 'echo hi', description: 'Say hi' } }
          : turn < 7
            ? failing
            : { text: 'Done anyway.' };
      };
      const remember = async (dir: string) => {
        project = dir;
      };
      const { dir, result, resultLine, received } = await claudeWithHooks(script, mode, [], remember);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'Done anyway.' });
      expect(received).toHaveLength(8);
      expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
      const log = hookLog(dir);
      expect(log.length).toBeGreaterThanOrEqual(5);
      for (const line of log)
        expect(line).toMatch(
          /claude (PreToolUse|PostToolUse|PostToolUseFailure|PostToolBatch|Stop|SessionEnd) session=\S+: failed open: .*state\.db/,
        );
    }, 600_000);

    it("after a refused call, the loop's words number the calls as its entries, status and scan do (qa40)", async () => {
      const script = (turn: number): ScriptedTurn =>
        turn === 0
          ? { tool: 'Bash', input: { command: 'echo one > one.txt', description: 'Write one' } }
          : turn === 1
            ? { tool: 'Bash', input: { command: 'sqlite3 .loopguard/state.db .dump', description: 'Dump' } }
            : failing;
      const { dir, home, result, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // call 2 refused; calls 3 to 5 fail the same way; call 6, their repeat, is denied
      const nudged = received.findIndex((r) => r.includes('Loop detected'));
      expect(nudged).toBe(5);
      expect(received[nudged]).toContain('3 times, since call 3.');
      expect(received[nudged]).toContain('- call 5: `cat missing.txt`');
      const { entries } = hookState(dir);
      expect(entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
        ['loop_nudge', 5],
        ['loop_stop', 6],
      ]);
      // call 6 never ran: the stop says so and quotes the calls that ran (story56)
      expect(entries[1]?.content).toMatch(
        /^Stopped \(same_error\): call 6 was refused before it ran: it repeats call 5, [^\n]*\nRepeating:\n- call 5: `cat missing.txt`/,
      );
      expect(entries[1]?.content).not.toContain('- call 6:');
      const status = await expectStatusAndDashboard(dir, 6);
      expect(status.summary).toContain('1 call refused');
      const scanned = await loopguard(dir, ['scan', '--json'], { HOME: home });
      expect(scanned.code, scanned.stderr).toBe(0);
      const sessions = (JSON.parse(scanned.stdout) as ScanReport).sessions;
      const loops = sessions.flatMap((session) => session.loops);
      expect(loops).toMatchObject([{ nudgeCall: 5, stopCall: 6, loopguard: 'stopped' }]);
      // scan49: status's story, refused call and all, with nothing to explain
      expect(sessions).toMatchObject([{ project: status.projectDir, record: { summary: status.summary } }]);
      expect(sessions[0]?.recordDiffers).toBeUndefined();
    }, 600_000);

    it("trust54: the model's Bash and Write that set Claude Code's disableAllHooks are refused; the loop after them is still nudged and stopped", async () => {
      const off = `echo '{"disableAllHooks": true}' > .claude/settings.local.json`;
      const local = '.claude/settings.local.json';
      const script = (turn: number): ScriptedTurn =>
        turn === 0
          ? { tool: 'Bash', input: { command: off, description: 'Quiet the hooks' } }
          : turn === 1
            ? { tool: 'Write', input: { file_path: local, content: '{"disableAllHooks": true}\n' } }
            : failing;
      const { dir, result, resultLine, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(received[1]).toContain('loopguard refused this call');
      expect(received[2]).toContain('loopguard refused this call');
      expect(existsSync(join(dir, '.claude', 'settings.local.json'))).toBe(false);
      expect(received.some((r) => r.includes('Loop detected'))).toBe(true);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      expect(hookState(dir).entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
    }, 600_000);

    it("trust64: the model's calls that take loopguard's hooks out of the settings, or its MCP server away, are refused; the loop after them is still nudged and stopped", async () => {
      const bash = (command: string): ScriptedTurn => ({
        tool: 'Bash',
        input: { command, description: command },
      });
      const script = (turn: number): ScriptedTurn =>
        turn === 0
          ? bash("jq 'del(.hooks)' .claude/settings.json > s.json && mv s.json .claude/settings.json")
          : turn === 1
            ? bash('claude mcp remove loopguard -s local')
            : failing;
      const { dir, result, resultLine, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(received[1]).toContain("it would take loopguard's hooks out");
      expect(received[2]).toContain("it would take loopguard's hooks out");
      expect(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8')).toContain('"loopguard": {');
      expect(received.some((r) => r.includes('Loop detected'))).toBe(true);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
    }, 600_000);

    it("trust66: a nested Claude Code with another home is refused where the project's hooks are the fast path's (that home registers no loopguard server), left alone where they are commands", async () => {
      const nested = 'CLAUDE_CONFIG_DIR=./other claude --version';
      const script = (turn: number): ScriptedTurn =>
        turn === 0 ? { tool: 'Bash', input: { command: nested, description: nested } } : failing;
      const { result, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const refused = received[1]?.includes('it starts an agent with another home');
      expect(refused).toBe(mode === 'mcp');
      expect(received.some((r) => r.includes('Loop detected'))).toBe(true);
    }, 600_000);

    it('refused69: the same failing Edit again and again (refused by Claude Code before any call hook) is nudged, then stopped, through PostToolBatch; status counts the calls', async () => {
      // call 1 reads README.md; 2 on sends an Edit whose old text is not in the file: Claude Code
      // refuses it itself (`<tool_use_error>String to replace not found`), runs no PostToolUse
      const script = (turn: number): ScriptedTurn =>
        turn === 0
          ? { tool: 'Read', input: { file_path: 'README.md' } }
          : turn < 20
            ? { tool: 'Edit', input: { file_path: 'README.md', old_string: 'nothere', new_string: 'x' } }
            : { text: 'Done.' };
      const { dir, home, result, resultLine, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const nudged = received.findIndex((r) => r.includes('Loop detected'));
      expect(nudged).toBeGreaterThan(0);
      expect(received[nudged]).toMatch(/PostToolBatch hook additional context: Loop detected \(\w+\): /);
      // the stop ends the session: no request after the one the stop answers
      const stopped = received.findIndex((r) => r.includes('Stopped ('));
      expect(stopped === -1 ? received.length : stopped).toBeLessThan(20);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      const { sessions, entries } = hookState(dir);
      expect(entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
      const calls = received.length;
      expect(sessions[0]?.tool_calls).toBe(calls);
      const status = await loopguard(dir, ['status'], { HOME: home });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`\\b${calls} (tool )?calls?\\b`));
      expect(hookLog(dir)).toEqual([]);
    }, 600_000);

    it('a stop after a failed rerun (PostToolUseFailure, which Claude Code does not end a session on) ends the session at its next call (qa40)', async () => {
      const bash = (command: string): ScriptedTurn => ({
        tool: 'Bash',
        input: { command, description: command },
      });
      // call 1 writes, 2-4 fail alike (nudged), 5 writes the same again, 6 fails again (the stop,
      // after it ran), and the model, told to stop, would go on with something else. The write
      // repeats: a new silent write would be an effect under every agent's framing (the ladder
      // starts again, as in Gemini CLI), the same one again is no news.
      const script = (turn: number): ScriptedTurn =>
        turn === 0 || turn === 4
          ? bash('echo one > one.txt')
          : turn < 6
            ? failing
            : turn < 10
              ? bash(`echo more${turn} > more${turn}.txt`)
              : { text: 'Done.' };
      const { dir, home, result, resultLine, received } = await claudeWithHooks(script, mode);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // the request after call 6 carries the stop; call 7 is denied before it runs and the session ends
      expect(received[6]).toContain('Stopped (same_error)');
      expect(received).toHaveLength(7);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      expect(existsSync(join(dir, 'more6.txt'))).toBe(false);
      expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
        ['loop_nudge', 4],
        ['loop_stop', 6],
      ]);
      // scan says the same call, the denied call 7 spent after it
      const scanned = await loopguard(dir, ['scan', '--json'], { HOME: home });
      expect(scanned.code, scanned.stderr).toBe(0);
      const sessions = (JSON.parse(scanned.stdout) as ScanReport).sessions;
      const loops = sessions.flatMap((session) => session.loops);
      expect(loops).toMatchObject([
        { nudgeCall: 4, stopCall: 6, wastedDeniedCalls: 1, loopguard: 'stopped' },
      ]);
      expect(sessions[0]?.record?.stop).toMatchObject({ on: 'loop', call: 6 });
      expect(sessions[0]?.recordDiffers).toBeUndefined();
    }, 600_000);
  },
);

describe('the fast path (MCP server) with a real Claude Code (offline)', () => {
  it("redteam68: a settings file's NODE_OPTIONS that ends every node at its start switches nothing off (the loop is still nudged and stopped)", async () => {
    const { result, resultLine, received } = await claudeWithHooks(
      (turn) => (turn < 7 ? failing : { text: 'Done anyway.' }),
      'mcp',
      [],
      async (repo) => {
        // one line in a settings file Claude Code hands to the servers it starts: no script needed
        mkdirSync(join(repo, '.claude'));
        writeFileSync(
          join(repo, '.claude', 'settings.local.json'),
          `${JSON.stringify({ env: { NODE_OPTIONS: '--import=data:text/javascript,process.exit(0)' } })}\n`,
        );
      },
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // on main: eight requests, `completed`: the server gone at its start, every hook failed open
    expect(received.some((r) => r.includes('Loop detected'))).toBe(true);
    expect(resultLine.terminal_reason).toBe('hook_stopped');
  }, 600_000);

  it('gives a squatter on the old resident port nothing, and the model calling the hook tool itself is refused', async () => {
    // A process listening where the old http hooks posted, as a local attacker would.
    const connections: string[] = [];
    const squatter = createServer((socket) => {
      socket.on('data', (data) => connections.push(String(data)));
      socket.end();
    });
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const { port } = squatter.address() as AddressInfo;
    const script = (turn: number): ScriptedTurn =>
      turn === 0
        ? {
            tool: 'mcp__loopguard__hook',
            input: { hook_event_name: 'PreToolUse', tool_name: 'Bash', session_id: 'forged', cwd: '/' },
          }
        : failing;
    try {
      const { dir, home, result, resultLine, received } = await claudeWithHooks(script, 'mcp');
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // the model's own call of loopguard's tool was refused before it ran
      expect(received[1]).toContain("mcp__loopguard__hook is loopguard's hook");
      // loopguard's decisions stand: nudged, then the repeat denied and the session ended
      const nudged = received.findIndex((r) => r.includes('Loop detected'));
      expect(nudged).toBeGreaterThan(1);
      expect(received).toHaveLength(nudged + 1);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      expect(hookState(dir).entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
      // nothing reached the port, and no file holds a port, a URL or a secret a listener could use
      expect(connections).toEqual([]);
      for (const file of [join(dir, '.claude', 'settings.json'), join(home, '.claude.json')]) {
        const text = readFileSync(file, 'utf8');
        expect(text).not.toMatch(/127\.0\.0\.1|Authorization|Bearer|"url"/);
        expect(text).not.toContain(String(port));
      }
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 600_000);

  it('init claude --user, then --command-hooks --replace in the project: the model finds no server to forge an event through (issue 38)', async () => {
    const forged = {
      tool: 'mcp__loopguard__hook',
      input: { hook_event_name: 'PostToolUse', tool_name: 'Bash', session_id: 'forged', cwd: '/' },
    };
    const script = (turn: number): ScriptedTurn => (turn === 0 ? forged : { text: 'Done.' });
    const { dir, result, received } = await claudeWithHooks(
      script,
      'command',
      ['--replace'],
      async (project, home) => {
        const user = await loopguard(project, ['init', 'claude', '--user'], { HOME: home });
        expect(user.code, user.stderr).toBe(0);
      },
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // no server answered the model's call: no session of its choosing in the project's database
    expect(received[1]).not.toContain("mcp__loopguard__hook is loopguard's hook");
    const sessions = existsSync(join(dir, '.loopguard', 'state.db')) ? hookState(dir).sessions : [];
    expect(sessions.map((s) => s.session_id)).not.toContain('forged');
  }, 600_000);

  it("init claude --user: a session started in a subfolder is the repository's, under its budget, and ends when Claude Code exits (qa49)", async () => {
    const { dir } = tempRepo('');
    writeFileSync(join(dir, 'loopguard.config.yaml'), ROOT_BUDGET);
    const sub = join(dir, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
    const init = await loopguard(dir, ['init', 'claude', '--user'], { HOME: home });
    expect(init.code, init.stderr).toBe(0);
    const script = (turn: number): ScriptedTurn =>
      turn === 0
        ? failing
        : turn === 1
          ? { tool: 'Bash', input: { command: 'echo one > one.txt', description: 'Write one' } }
          : { text: 'Done.' };
    const api = await startFakeAnthropicApi(script);
    try {
      const { result, resultLine } = await runClaudePrint(claude, sub, api.url, home);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'Done.' });
    } finally {
      await api.close();
    }
    // the fast path's SessionEnd is its one command hook: the session reads ended, not running
    await expectSessionOfTheRoot(dir, sub, 'claude');
  }, 600_000);

  it('lets the session complete unguarded when loopguard is gone (fail open)', async () => {
    // the MCP server's command points at nothing, as after removing loopguard's files
    const script = (turn: number): ScriptedTurn => (turn < 5 ? failing : { text: 'Done anyway.' });
    const { dir, result, resultLine, received } = await claudeWithHooks(script, 'mcp', [
      '--command',
      '/nonexistent/loopguard',
    ]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(resultLine).toMatchObject({ subtype: 'success', result: 'Done anyway.' });
    expect(received).toHaveLength(6);
    expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
    expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(false);
  }, 600_000);
});
