import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { hookState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';

// qa60: a real Claude Code 2.1.330 (offline) whose first reply comes before loopguard's MCP server is
// connected (the server's start held 3 s here; three `claude -p` at once on a loaded machine did it
// unprompted). Claude Code waits for the server for that call's `PreToolUse`, but skips its
// `PostToolUseFailure` ("mcp_tool hook skipped — MCP server 'loopguard' not connected"): the session
// ran 4 calls and every door said 3.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

const COMMANDS = ['cat missing1.txt', 'cat missing2.txt', 'cat missing3.txt', 'cat missing4.txt'];

/**
 * A real `claude -p` in a new repository whose loopguard MCP server starts 3 s late, the model
 * scripted by `script` (its turn: the assistant messages so far); the project, the `init` line
 * and the requests the model received.
 */
async function lateServerSession(script: (turn: number) => ScriptedTurn) {
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
  const init = await loopguard(dir, ['init', 'claude'], { HOME: home });
  expect(init.code, init.stderr).toBe(0);
  // the server Claude Code starts, held 3 s before it runs; it marks its start
  const serverStarted = join(home, 'loopguard-server-started');
  const file = join(home, '.claude.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  const server = config.projects[dir].mcpServers.loopguard as { command: string; args: string[] };
  const started = [server.command, ...server.args].map((word) => `'${word}'`).join(' ');
  config.projects[dir].mcpServers.loopguard = {
    ...server,
    command: 'sh',
    args: ['-c', `sleep 3; : > '${serverStarted}'; exec ${started}`],
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  // The first reply goes out at once (its call runs before the server is connected); the second
  // waits for the server to start and connect, so that the later calls reach it on a machine of any
  // speed (on a quiet one the model's four calls all ran within the 3 s, the nudge with them).
  let connected: Promise<void> | undefined;
  const untilConnected = async () => {
    while (!existsSync(serverStarted)) await sleep(100);
    await sleep(2000);
  };
  const api = await startFakeAnthropicApi(async (turn) => {
    if (turn > 0) {
      connected ??= untilConnected();
      await connected;
    }
    return script(turn);
  });
  try {
    const { lines } = await runClaudePrint(claude, dir, api.url, home);
    return {
      dir,
      init: lines.find((line) => line.subtype === 'init'),
      received: api.conversations.map((c) => JSON.stringify(c)),
    };
  } finally {
    await api.close();
  }
}

/** The condition of every test here: the session began before the server was connected. */
const PENDING = { mcp_servers: [{ name: 'loopguard', status: 'pending' }] };

describe('the fast path with a server that connects after the first reply (Claude Code 2.1.330)', () => {
  it('counts the first call, whose result Claude Code never hands over, once: every call that ran', async () => {
    const { dir, init } = await lateServerSession((turn): ScriptedTurn => {
      const command = COMMANDS[turn];
      return command === undefined
        ? { text: 'I stop here.' }
        : { tool: 'Bash', input: { command, description: 'try' } };
    });
    expect(init).toMatchObject(PENDING);
    expect(hookState(dir).sessions).toMatchObject([{ tool_calls: 4 }]);
  }, 300_000);

  // latesrv62: the first call's result, read from the session's transcript at the next call, is
  // judged in order: a loop starting at that call is nudged at its third failure, not its fourth
  it('nudges a loop that starts at that call on time: its result is read from the transcript', async () => {
    const { dir, init, received } = await lateServerSession(() => ({
      tool: 'Bash',
      input: { command: 'cat missing.txt', description: 'try' },
    }));
    expect(init).toMatchObject(PENDING);
    // request k follows call k: the nudge of the third failure is in request 3
    const nudged = received.findIndex((r) => r.includes('Loop detected'));
    expect(nudged).toBe(3);
    expect(received[nudged]).toContain('3 times, since call 1.');
    const { sessions, entries } = hookState(dir);
    expect(entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 4],
    ]);
    expect(sessions).toMatchObject([{ tool_calls: 3 }]);
  }, 300_000);
});
