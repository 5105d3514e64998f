import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import { claudeEvent, claudeFailingCall, hookCall, hookLog, hookState, tempProject } from './hookHelpers.js';

/** The `hook` tool's arguments as Claude Code makes them: every field a string, objects as JSON. */
const toolArguments = (event: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(event).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );

/**
 * An in-process server for `projectDir` (`waitBudgetMs` -1: every call is late); `raw` writes one
 * message and resolves with its answer; `lines` holds every answer written.
 */
function mcpServer(projectDir: string, waitBudgetMs?: number) {
  const lines: string[] = [];
  const server = new McpHookServer({
    write: (line) => lines.push(line),
    projectDir,
    ...(waitBudgetMs === undefined ? {} : { waitBudgetMs }),
  });
  let id = 0;
  const raw = async (text: string) => {
    const before = lines.length;
    server.receive(Buffer.from(`${text}\n`));
    await server.idle();
    return lines.slice(before).map((line) => JSON.parse(line));
  };
  const request = async (method: string, params: unknown) =>
    (await raw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })))[0];
  const hook = async (event: Record<string, unknown>) => {
    const answer = await request('tools/call', { name: 'hook', arguments: toolArguments(event) });
    return answer.result.content[0].text as string;
  };
  return { server, lines, raw, request, hook };
}

/** A Claude Code `PostToolUse` of `echo <n>` in session `s1`: a new command each `n` (progress). */
const echoCall = (project: string, n: number, session = 's1') =>
  claudeEvent(project, session, 'PostToolUse', {
    tool_name: 'Bash',
    tool_input: { command: `echo ${n}` },
    tool_response: { stdout: `${n}`, stderr: '' },
    tool_use_id: `toolu_${session}_${n}`,
  });

describe("loopguard's MCP server (the fast path of Claude Code's hooks)", () => {
  it('lists its one tool and answers each event as the command hook does', async () => {
    const viaMcp = tempProject();
    const viaCommand = tempProject();
    const { request, hook } = mcpServer(viaMcp);
    const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {} });
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: {} } });
    expect((await request('tools/list', {})).result.tools.map((t: { name: string }) => t.name)).toEqual([
      'hook',
    ]);
    const replies: string[] = [];
    const commandReplies: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const call = claudeFailingCall(viaMcp, 's1', n);
      replies.push(await hook(call.pre), await hook(call.post));
      const same = claudeFailingCall(viaCommand, 's1', n);
      commandReplies.push((await hookCall(viaCommand, 'claude', same.pre)).stdout);
      commandReplies.push((await hookCall(viaCommand, 'claude', same.post)).stdout);
    }
    expect(replies.join('')).toContain('additionalContext');
    expect(replies.join('')).toContain('"permissionDecision":"deny"');
    expect(replies).toEqual(commandReplies.map((reply) => reply.replaceAll(viaCommand, viaMcp)));
    expect(hookState(viaMcp).sessions).toMatchObject([
      { agent: 'claude', session_id: 's1', project_dir: viaMcp },
    ]);
  });

  it('refuses the model’s own call of its tool before it runs, and never answers allow', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project);
    const own = {
      tool_name: 'mcp__loopguard__hook',
      tool_input: { hook_event_name: 'PreToolUse' },
      tool_use_id: 'toolu_x',
    };
    const pre = JSON.parse(await hook(claudeEvent(project, 's1', 'PreToolUse', own)));
    expect(pre.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(await hook(claudeEvent(project, 's1', 'PostToolUse', own))).toBe('');
    expect(existsSync(join(project, '.loopguard'))).toBe(false);
  });

  it('refuses bad messages and bad arguments, writing nothing', async () => {
    const project = tempProject();
    const { raw, request } = mcpServer(project);
    expect((await raw('not json'))[0].error.code).toBe(-32700);
    expect((await raw('[]'))[0].error.code).toBe(-32600);
    expect((await request('nothing/here', {})).error.code).toBe(-32601);
    for (const args of [[], null, 'text', { session_id: 1 }]) {
      const answer = await request('tools/call', { name: 'hook', arguments: args });
      expect(answer.result.isError).toBe(true);
    }
    expect((await request('tools/call', { name: 'other', arguments: {} })).result.isError).toBe(true);
    expect(existsSync(join(project, '.loopguard'))).toBe(false);
  });

  it('never writes into its working directory for a session without a known project', async () => {
    const before = readdirSync(process.cwd());
    const { hook } = mcpServer('');
    const noCwd = { ...echoCall('/x', 1) } as Record<string, unknown>;
    delete noCwd.cwd;
    expect(await hook(noCwd)).toBe('');
    expect(await hook({ ...echoCall('/x', 2), cwd: 'relative/dir' })).toBe('');
    expect(readdirSync(process.cwd())).toEqual(before);
    expect(existsSync('relative')).toBe(false);
  });

  it('counts an event once when two hook entries deliver it (installed twice)', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project);
    let nudgedAt = 0;
    for (const n of [1, 2, 3, 4]) {
      const { post } = claudeFailingCall(project, 's1', n);
      const [first, second] = [await hook(post), await hook(post)];
      expect(second).toBe('');
      if (nudgedAt === 0 && first.includes('Loop detected')) nudgedAt = n;
    }
    expect(hookState(project).sessions).toMatchObject([{ steps: 8 }]);
    // the same call number as with one entry (see hook.test.ts): not after two failures
    expect(nudgedAt).toBe(3);
  });

  it('answers eight 50 MB events sent at once, one at a time', async () => {
    const project = tempProject();
    const lines: string[] = [];
    const inner = new McpHookServer({
      write: (line) => lines.push(line),
      projectDir: project,
      // each is guarded however long it waits (the budget has its own test)
      waitBudgetMs: Number.POSITIVE_INFINITY,
    });
    const output = 'x'.repeat(50 * 1024 * 1024);
    for (let n = 0; n < 8; n++) {
      const event = { ...echoCall(project, n, `big${n}`), tool_response: output };
      const args = Object.fromEntries(
        Object.entries(event).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      );
      inner.receive(
        Buffer.from(
          `${JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'hook', arguments: args } })}\n`,
        ),
      );
    }
    await inner.idle();
    expect(lines.map((line) => JSON.parse(line).id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(hookState(project).sessions).toHaveLength(8);
    expect(hookLog(project)).toEqual([]);
    inner.close();
  }, 60_000);

  it('answers a call that waited past its budget with silence at once, and logs it', async () => {
    const project = tempProject();
    const { server, lines } = mcpServer(project, -1);
    const { post } = claudeFailingCall(project, 's1', 1);
    const args = toolArguments(post);
    server.receive(
      Buffer.from(
        `${JSON.stringify({ method: 'tools/call', params: { name: 'hook', arguments: args }, jsonrpc: '2.0', id: 7 })}\n`,
      ),
    );
    await server.idle();
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '' }], isError: false } },
    ]);
    expect(hookLog(project)).toEqual([
      expect.stringMatching(/failed open: the call waited \d+ ms for the ones before it$/),
    ]);
    expect(existsSync(join(project, '.loopguard', 'state.db'))).toBe(false);
  });

  it('answers a late call with its own id wherever the id stands, in chunks of any size', async () => {
    const project = tempProject();
    const { server, lines } = mcpServer(project, -1);
    const args = { cwd: project, tool_response: `"id":"not this" ${'y'.repeat(10_000)}` };
    const message = `\n${JSON.stringify({ jsonrpc: '2.0', id: 'first', method: 'tools/call', params: { name: 'hook', arguments: args } })}\n`;
    const sent = Buffer.from(message);
    for (let at = 0; at < sent.length; at += 777) server.receive(sent.subarray(at, at + 777));
    await server.idle();
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(['first']);
  });

  it('sees a database replaced under its open connection as a hook process would', async () => {
    const project = tempProject();
    const { hook } = mcpServer(project);
    await hook(echoCall(project, 1));
    const db = join(project, '.loopguard', 'state.db');
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    rmSync(db);
    writeFileSync(db, 'garbage\n');
    expect(await hook(echoCall(project, 2))).toBe('');
    expect(hookLog(project)).toEqual([expect.stringMatching(/failed open: .*state\.db/)]);
  });
});
