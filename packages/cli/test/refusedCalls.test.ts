import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openLoopGuardDatabase, SqliteStatusReader } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { OWN_STATE_REFUSED } from '../src/hook/ownStateCall.js';
import { answerHookEvent } from '../src/hook/runHook.js';
import { runCli } from '../src/main.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import { statuslineMain } from '../src/statusline/statuslineMain.js';
import { bufferedIo } from './helpers.js';
import {
  claudeEvent,
  claudeFailingCall,
  codexShellCall,
  geminiEvent,
  mcpHookCall,
  tempProject,
} from './hookHelpers.js';

// Issue 35 "sessions first": a call loopguard refused (the model's own call against loopguard,
// issue 38) is a decision loopguard made, and every door says it: `status`, `status --session`,
// the dashboard's session (its summary, its entries) and the status line.

const DUMP = 'sqlite3 .loopguard/state.db .dump';

/** A Claude Code session: call 1 ran and failed, call 2 was refused (its hook installed twice). */
async function claudeSessionWithRefusal(): Promise<string> {
  const dir = tempProject();
  const first = claudeFailingCall(dir, 's1', 1);
  const refused = claudeEvent(dir, 's1', 'PreToolUse', {
    tool_name: 'Bash',
    tool_input: { command: DUMP },
    tool_use_id: 'toolu_2',
  });
  for (const event of [first.pre, first.post, refused, refused])
    await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir });
  return dir;
}

async function cli(cwd: string, args: string[]) {
  const io = bufferedIo({ cwd, env: { NO_COLOR: '1' } });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** The project's `call_refused` entries, oldest first. */
function refusals(dir: string) {
  const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { readonly: true });
  try {
    return (
      database.db
        .prepare(
          "SELECT content, related_tasks, metadata FROM context_entries WHERE topic = 'call_refused' ORDER BY id",
        )
        .all() as { content: string; related_tasks: string; metadata: string }[]
    ).map((e) => ({ ...e, related_tasks: JSON.parse(e.related_tasks), metadata: JSON.parse(e.metadata) }));
  } finally {
    database.close();
  }
}

describe('a refused call, in every door (issue 35)', () => {
  it('is recorded once, under its session, with the command and the sentence the model got, at its call', async () => {
    const dir = await claudeSessionWithRefusal();
    expect(refusals(dir)).toEqual([
      {
        content: `Bash: ${DUMP} — ${OWN_STATE_REFUSED}`,
        related_tasks: ['claude:s1'],
        metadata: {
          sessionId: 's1',
          agent: 'claude',
          projectDir: dir,
          hookEvent: 'PreToolUse',
          tool: 'Bash',
          command: DUMP,
          toolCall: 2,
          deniedBeforeRun: true,
        },
      },
    ]);
  });

  it("status counts it in the session's summary; status --session lists it with its command and sentence", async () => {
    const dir = await claudeSessionWithRefusal();
    const status = await cli(dir, ['status']);
    expect(status.code).toBe(0);
    expect(status.out).toContain('1 tool call ran, 1 call refused');
    const one = await cli(dir, ['status', '--session', 's1']);
    expect(one.code).toBe(0);
    expect(one.out).toContain(`call refused at call 2: Bash: ${DUMP} — loopguard refused this call:`);
    const json = JSON.parse((await cli(dir, ['status', '--session', 's1', '--json'])).out);
    expect(json).toMatchObject({ refusedCalls: 1, toolCalls: 1 });
    expect(json.entries.map((e: { topic: string }) => e.topic)).toEqual(['call_refused']);
  });

  it("the dashboard's reads: the session's summary and its entries (/sessions, /sessions/entries)", async () => {
    const dir = await claudeSessionWithRefusal();
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { readonly: true });
    try {
      const reader = new SqliteStatusReader(database);
      const { sessions } = await reader.sessionPage({ limit: 10 });
      expect(sessions).toMatchObject([{ sessionId: 's1', refusedCalls: 1 }]);
      expect(sessions[0]?.summary).toContain('1 call refused');
      const entries = await reader.sessionEntries({ agent: 'claude', sessionId: 's1' }, 10);
      expect(entries).toMatchObject([
        { topic: 'call_refused', action: 'call_refused', taskId: 'claude:s1', metadata: { toolCall: 2 } },
      ]);
    } finally {
      database.close();
    }
  });

  it('the status line says it briefly, in the same words', async () => {
    const dir = await claudeSessionWithRefusal();
    let out = '';
    const code = await statuslineMain(
      Readable.from([JSON.stringify({ session_id: 's1', cwd: dir })]),
      (text) => {
        out += text;
      },
      {},
    );
    expect(code).toBe(0);
    expect(out).toBe('loopguard: running, 1 tool call ran, 1 call refused\n');
  });

  it("Gemini CLI's and Codex's refusals take the same path, each at its call", async () => {
    const dir = tempProject();
    const gemini = geminiEvent(dir, 'g1', 'BeforeTool', {
      tool_name: 'run_shell_command',
      tool_input: { command: DUMP },
    });
    await answerHookEvent('gemini', JSON.stringify(gemini), { env: {}, cwd: dir });
    const codex = codexShellCall(dir, 'rm .loopguard/state.db');
    await answerHookEvent('codex', JSON.stringify(codex), { env: {}, cwd: dir });
    expect(refusals(dir).map((e) => [e.related_tasks[0], e.metadata.command, e.metadata.toolCall])).toEqual([
      ['gemini:g1', DUMP, 1],
      ['codex:c1', 'rm .loopguard/state.db', 1],
    ]);
    const status = await cli(dir, ['status']);
    expect(status.out.match(/1 call refused/g)).toHaveLength(2);
  });

  it('on the fast path too: the MCP server records the same entry', async () => {
    const dir = tempProject();
    const lines: string[] = [];
    const server = new McpHookServer({ write: (line) => lines.push(line), projectDir: dir, env: {} });
    const event = claudeEvent(dir, 's1', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: DUMP },
      tool_use_id: 'toolu_1',
    });
    server.receive(mcpHookCall(event));
    await server.idle();
    expect(lines).toHaveLength(1);
    expect(refusals(dir).map((e) => [e.content, e.metadata.toolCall])).toEqual([
      [`Bash: ${DUMP} — ${OWN_STATE_REFUSED}`, 1],
    ]);
  });

  it("prints the command as text: a terminal escape in it is not sent to the user's terminal", async () => {
    const dir = tempProject();
    const command = 'sqlite3 .loopguard/state.db "\u001b]0;owned\u0007\u001b[2J"\nrm -rf .loopguard';
    const event = claudeEvent(dir, 's1', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: 'toolu_1',
    });
    await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir });
    const [entry] = refusals(dir);
    expect(entry?.metadata.command).toBe(command);
    const { out } = await cli(dir, ['status', '--session', 's1']);
    for (const control of ['\u001b', '\u0007']) expect(out).not.toContain(control);
    expect(out).toContain(
      'Bash: sqlite3 .loopguard/state.db "\uFFFD]0;owned\uFFFD\uFFFD[2J" rm -rf .loopguard — ',
    );
  });
});
