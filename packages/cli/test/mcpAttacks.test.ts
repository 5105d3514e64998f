import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_BYTES } from '../src/hook/readBounded.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import {
  claudeEvent,
  claudeFailingCall,
  hookCall,
  hookLog,
  hookState,
  spendState,
  tempProject,
} from './hookHelpers.js';

// Issue 38: the fast path (`loopguard mcp`) against a hostile model and malformed input. Each test
// is the attack, and failed before its fix.

/** The `hook` tool's arguments as Claude Code makes them: every field a string, objects as JSON. */
const toolArguments = (event: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(event).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );

/** An in-process server: `raw` writes one line and resolves with every reply written meanwhile. */
function mcpServer(projectDir: string, options: { env?: NodeJS.ProcessEnv; waitBudgetMs?: number } = {}) {
  const lines: string[] = [];
  const server = new McpHookServer({ write: (line) => lines.push(line), projectDir, ...options });
  let id = 0;
  const raw = async (text: string | Buffer) => {
    const before = lines.length;
    server.receive(typeof text === 'string' ? Buffer.from(`${text}\n`) : text);
    await server.idle();
    return lines.slice(before).map((line) => JSON.parse(line));
  };
  const hook = async (event: Record<string, unknown>) => {
    const message = {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name: 'hook', arguments: toolArguments(event) },
    };
    const [answer] = await raw(JSON.stringify(message));
    return answer.result.content[0].text as string;
  };
  return { server, lines, raw, hook };
}

describe('the fast path honours every off switch of the command hook', () => {
  it('LOOPGUARD_HOOK=off: no nudge, no stop, nothing written', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project, { env: { LOOPGUARD_HOOK: 'off' } });
    const replies: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const call = claudeFailingCall(project, 's1', n);
      replies.push(await hook(call.pre), await hook(call.post));
    }
    expect(replies.join('')).toBe('');
    expect(existsSync(join(project, '.loopguard'))).toBe(false);
  });

  it('hook.enabled: false in the project', async () => {
    const project = tempProject();
    writeFileSync(join(project, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
    const { hook } = mcpServer(project);
    for (const n of [1, 2, 3, 4]) expect(await hook(claudeFailingCall(project, 's1', n).post)).toBe('');
    expect(existsSync(join(project, '.loopguard'))).toBe(false);
  });
});

describe("the model's own call of mcp__loopguard__hook", () => {
  const own = {
    tool_name: 'mcp__loopguard__hook',
    tool_input: { hook_event_name: 'PostToolUse', session_id: 'victim' },
    tool_use_id: 'toolu_own',
  };

  it('is refused however long the hook call waited for the ones before it', async () => {
    const project = tempProject();
    // every call is late: the late path would answer silence, and the call would run
    const { hook } = mcpServer(project, { waitBudgetMs: -1 });
    const pre = JSON.parse(await hook(claudeEvent(project, 's1', 'PreToolUse', own)));
    expect(pre.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });

  it('is refused at once while an earlier call still waits its turn', async () => {
    const project = tempProject();
    const { server, lines } = mcpServer(project);
    const send = (id: number, event: Record<string, unknown>) =>
      server.receive(
        Buffer.from(
          `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hook', arguments: toolArguments(event) } })}\n`,
        ),
      );
    send(1, claudeFailingCall(project, 's1', 1).post);
    send(2, claudeEvent(project, 's1', 'PreToolUse', own));
    // answered before the first call (queued) had its turn
    expect(lines.map((line) => JSON.parse(line).id)).toEqual([2]);
    await server.idle();
    expect(lines.map((line) => JSON.parse(line).id)).toEqual([2, 1]);
  });

  it('is refused with LOOPGUARD_HOOK=off too (it reads and writes nothing)', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project, { env: { LOOPGUARD_HOOK: 'off' } });
    expect(await hook(claudeEvent(project, 's1', 'PreToolUse', own))).toContain(
      '"permissionDecision":"deny"',
    );
    expect(existsSync(join(project, '.loopguard'))).toBe(false);
  });
});

describe('what the server trusts: a forged event cannot spend another session’s or the project’s budget', () => {
  const T0 = Date.parse('2026-11-28T10:00:00Z');
  /** A reply of `tokens` input tokens of claude-sonnet-4-5 ($3 per million), as Claude Code writes it. */
  const reply = (id: string, tokens: number) =>
    `${JSON.stringify({
      type: 'assistant',
      timestamp: new Date(T0).toISOString(),
      message: {
        id,
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        usage: { input_tokens: tokens, output_tokens: 0 },
        content: [],
      },
    })}\n`;

  /** A project with a daily budget of $1, and Claude Code's config folder for it. */
  function setUp() {
    const project = tempProject();
    writeFileSync(join(project, 'loopguard.config.yaml'), 'spend:\n  projectDay:\n    maxCostUsd: 1\n');
    const config = join(tempProject(), 'claude-config');
    const folder = join(config, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'));
    mkdirSync(folder, { recursive: true });
    const { hook } = mcpServer(project, { env: { CLAUDE_CONFIG_DIR: config, HOME: '/nonexistent' } });
    let n = 0;
    const afterTool = (session: string, transcript: string) =>
      hook({
        ...claudeEvent(project, session, 'PostToolUse', {
          tool_name: 'Read',
          tool_input: { file_path: `f${++n}.ts` },
          tool_response: `content ${n}`,
          tool_use_id: `toolu_${n}`,
        }),
        transcript_path: transcript,
      });
    return { project, folder, afterTool };
  }

  it('a transcript_path outside Claude Code’s folder is not read (one log line)', async () => {
    const { project, folder, afterTool } = setUp();
    // the model wrote a transcript of its own, and names another session
    const forged = join(project, 'forged.jsonl');
    writeFileSync(forged, reply('msg_forged', 100_000_000));
    expect(await afterTool('victim', forged)).toBe('');
    // nor a file named like the session's but elsewhere, nor one reached through `..`
    const elsewhere = join(project, 'victim.jsonl');
    writeFileSync(elsewhere, reply('msg_forged2', 100_000_000));
    expect(await afterTool('victim', elsewhere)).toBe('');
    expect(
      await afterTool('victim', `${folder}/../../projects/${folder.split('/').at(-1)}/victim.jsonl`),
    ).toBe('');
    expect(hookLog(project)).toEqual([
      expect.stringContaining("is not the session's transcript in Claude Code's folder"),
      expect.stringContaining("is not the session's transcript in Claude Code's folder"),
      expect.stringContaining("is not the session's transcript in Claude Code's folder"),
    ]);
    // the honest session is counted from its own transcript, and not stopped
    const honest = join(folder, 'honest.jsonl');
    writeFileSync(honest, reply('msg_1', 1000));
    expect(await afterTool('honest', honest)).toBe('');
    const day = spendState(project).ledgers.find((l) => l.scope.startsWith('project_day:'));
    expect(day?.ledger.totals).toMatchObject({ replies: 1, tokens: 1000 });
  });

  it('another session’s transcript under another name is not read', async () => {
    const { project, folder, afterTool } = setUp();
    const other = join(folder, 'other.jsonl');
    writeFileSync(other, reply('msg_1', 200_000_000));
    expect(await afterTool('forged-session', other)).toBe('');
    expect(spendState(project).ledgers.flatMap((l) => [l.ledger.totals?.tokens ?? 0])).not.toContain(
      200_000_000,
    );
  });
});

describe('a server Claude Code did not start (trust42)', () => {
  it("guards nothing without CLAUDE_PROJECT_DIR: an event's cwd cannot name another project", async () => {
    // loopguard mcp registered by a repository in another agent's MCP configuration (no
    // CLAUDE_PROJECT_DIR): its model names a project of the user's and a session there
    const victim = tempProject();
    const { hook } = mcpServer('');
    for (let n = 1; n <= 5; n++) expect(await hook(claudeFailingCall(victim, 'victim', n).post)).toBe('');
    expect(existsSync(join(victim, '.loopguard'))).toBe(false);
  });
});

describe('bad input on the fast path', () => {
  it('reads a plain-text tool result that starts as JSON does as the command hook reads it', async () => {
    const viaMcp = tempProject();
    const viaCommand = tempProject();
    const { hook } = mcpServer(viaMcp);
    const event = (project: string, n: number) =>
      claudeEvent(project, 's1', 'PostToolUse', {
        tool_name: 'Bash',
        tool_input: { command: 'psql -c "select 1"' },
        tool_response: '[ERROR] connection refused: db:5432',
        tool_use_id: `toolu_${n}`,
      });
    const mcpReplies: string[] = [];
    const commandReplies: string[] = [];
    for (const n of [1, 2, 3]) {
      mcpReplies.push(await hook(event(viaMcp, n)));
      commandReplies.push((await hookCall(viaCommand, 'claude', event(viaCommand, n))).stdout);
    }
    expect(commandReplies[2]).toContain('Loop detected');
    expect(mcpReplies).toEqual(commandReplies.map((reply) => reply.replaceAll(viaCommand, viaMcp)));
    expect(hookLog(viaMcp)).toEqual([]);
  });

  it('answers every request: an object for a method or a tool name, a batch, a value that is no object', async () => {
    const { raw } = mcpServer(tempProject());
    const [method] = await raw('{"jsonrpc":"2.0","id":1,"method":{"toString":1}}');
    expect(method).toMatchObject({ id: 1, error: { code: -32600 } });
    const [tool] = await raw(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":{"toString":1},"arguments":{}}}',
    );
    expect(tool).toMatchObject({ id: 2, result: { isError: true } });
    const [batch] = await raw(
      '[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"id":{"a":1}}]',
    );
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: expect.stringContaining('batch') } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('batch') } },
    ]);
    expect(await raw('[]')).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) },
    ]);
    for (const text of ['5', '"x"', 'null', '{"id":{"toString":1},"method":"ping"}'])
      expect((await raw(text))[0], text).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await raw('{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}'))[0]).toMatchObject({
      id: 4,
      result: {},
    });
    // a notification gets none
    expect(await raw('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual([]);
  });

  it("refuses an event over the command hook's bound unparsed, answering silence with its id", async () => {
    const project = tempProject();
    const { raw } = mcpServer(project);
    const args = toolArguments({
      ...claudeFailingCall(project, 's1', 1).post,
      error: 'e'.repeat(MAX_EVENT_BYTES),
    });
    const message = Buffer.from(
      `${JSON.stringify({ method: 'tools/call', params: { name: 'hook', arguments: args }, jsonrpc: '2.0', id: 9 })}\n`,
    );
    // well under twice the bound (the old one): it used to be parsed and guarded
    expect(message.length).toBeLessThan(MAX_EVENT_BYTES + 4096);
    const replies: unknown[] = [];
    for (let at = 0; at < message.length; at += 65_536)
      replies.push(...(await raw(message.subarray(at, at + 65_536))));
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: '' }], isError: false } },
    ]);
    expect(hookLog(project)).toEqual([
      expect.stringMatching(/failed open: the event is larger than 67108864 bytes$/),
    ]);
    expect(existsSync(join(project, '.loopguard', 'state.db'))).toBe(false);
    // the next message is read as usual
    expect(await raw('{"jsonrpc":"2.0","id":10,"method":"ping"}')).toEqual([
      { jsonrpc: '2.0', id: 10, result: {} },
    ]);
  }, 60_000);

  it('a line feed in session_id cannot forge a line of hook.log', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project);
    mkdirSync(join(project, '.loopguard'));
    writeFileSync(join(project, '.loopguard', 'state.db'), 'not a database\n'.repeat(10));
    const forged = 's1\n2026-11-28T10:00:00.000Z claude: all clear';
    expect(await hook(claudeFailingCall(project, forged, 1).post)).toBe('');
    const log = readFileSync(join(project, '.loopguard', 'hook.log'), 'utf8');
    expect(log.split('\n').filter(Boolean)).toHaveLength(1);
    expect(log).toContain('session=s1\\n2026-11-28T10:00:00.000Z claude: all clear');
  });

  it('never stores a lone surrogate as bytes that are not UTF-8; a NUL keeps two sessions apart', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project);
    expect(await hook(claudeFailingCall(project, 'a\ud800', 1).post)).toBe('');
    expect(hookLog(project)).toEqual([
      expect.stringContaining('event field session_id holds a lone surrogate'),
    ]);
    await hook(claudeFailingCall(project, 'b\u0000x', 1).post);
    await hook(claudeFailingCall(project, 'b', 1).post);
    expect(
      hookState(project)
        .sessions.map((s) => s.session_id)
        .sort(),
    ).toEqual(['b', 'b\u0000x']);
    // a result quoting one is stored as U+FFFD (nudged at the third call, quoted in the entry)
    for (const n of [1, 2, 3]) await hook(claudeFailingCall(project, 'c', n, `cat missing\ud800.txt`).post);
    const db = new Database(join(project, '.loopguard', 'state.db'), { readonly: true });
    const stored = db.prepare('SELECT CAST(content AS BLOB) AS bytes FROM context_entries').all() as Array<{
      bytes: Buffer;
    }>;
    db.close();
    expect(stored).toHaveLength(1);
    const bytes = stored[0]?.bytes as Buffer;
    // UTF-8 as written: decoding and encoding again gives the same bytes
    expect(Buffer.from(bytes.toString('utf8'))).toEqual(bytes);
    expect(bytes.toString('utf8')).toContain('missing\ufffd.txt');
  });
});
