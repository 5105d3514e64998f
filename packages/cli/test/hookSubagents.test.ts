import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { hookToolInput } from '../src/mcp/hookTool.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import { recordDifference } from '../src/scan/recordDifference.js';
import type { ScannedSession } from '../src/scan/scannedSession.js';
import {
  claudeEvent,
  claudeFailingCall,
  hookCall,
  hookLog,
  hookState,
  recordedEvents,
  spendState,
  tempProject,
  trustedTranscript,
} from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

// Claude Code's subagents (checked with 2.1.330): their tool calls reach the same hooks with the
// session's `session_id` and `transcript_path`, plus `agent_id` and `agent_type`.

/** A subagent's event: the session's event with its `agent_id` and `agent_type`. */
const subagent = (event: Record<string, unknown>, agentId = 'a1f2e3d4c5b6a7980') => ({
  ...event,
  agent_id: agentId,
  agent_type: 'general-purpose',
});

/** A `PostToolUse` of `command` whose output is always `output`. */
const bashCall = (dir: string, n: number, command: string, output: string) =>
  claudeEvent(dir, 's1', 'PostToolUse', {
    tool_name: 'Bash',
    tool_input: { command, description: 'check' },
    tool_response: { stdout: output, stderr: '', interrupted: false, isImage: false },
    tool_use_id: `toolu_${n}`,
  });

/** One way an event reaches loopguard, returning the hook's reply. */
type Door = (dir: string, env?: NodeJS.ProcessEnv) => (event: Record<string, unknown>) => Promise<string>;

/** `loopguard hook claude` with the event on stdin (command hooks). */
const commandHook: Door = (dir) => async (event) => (await hookCall(dir, 'claude', event)).stdout;

/**
 * The fast path: loopguard's MCP server, called as Claude Code calls its `mcp_tool` hook: every
 * field of the entry's `input` filled from the event (an object as its JSON, a missing field as "").
 */
const fastPath: Door = (dir, env) => {
  const lines: string[] = [];
  const server = new McpHookServer({
    write: (line) => lines.push(line),
    projectDir: dir,
    ...(env === undefined ? {} : { env }),
  });
  let id = 0;
  return async (event) => {
    const args = Object.fromEntries(
      Object.keys(hookToolInput()).map((field) => {
        const value = event[field];
        return [field, value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)];
      }),
    );
    const message = {
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name: 'hook', arguments: args },
    };
    server.receive(Buffer.from(`${JSON.stringify(message)}\n`));
    await server.idle();
    return JSON.parse(lines.at(-1) as string).result.content[0].text as string;
  };
};

/**
 * A project with a 1,000-token session budget, the session's transcript where Claude Code keeps it
 * (the only one the fast path reads) and its subagents' folder, where 2.1.330 writes them; `hook`
 * hands `door` an event naming that transcript.
 */
function budgetedSession(door: Door) {
  const dir = tempProject();
  writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 1000\n');
  const transcript = trustedTranscript(dir);
  const door_ = door(dir, transcript.env);
  const hook = (event: Record<string, unknown>) => door_({ ...event, transcript_path: transcript.path });
  const main = transcript.path;
  const folder = join(dirname(main), 's1', 'subagents');
  mkdirSync(folder, { recursive: true });
  const own = join(folder, 'agent-a1f2e3d4c5b6a7980.jsonl');
  return { dir, hook, main, folder, own, env: transcript.env };
}

describe("scan of a Claude Code session whose subagent's call reached the session's budget (sess66)", () => {
  it("agrees with its record: the stop, at no call of the session's own, is in the subagent's transcript", () => {
    const session: ScannedSession = {
      file: '/p/s1.jsonl',
      agent: 'claude',
      format: 'claude-transcript',
      sessionId: 's1',
      project: '/p',
      startedAt: null,
      steps: 2,
      toolCalls: 1,
      deniedCalls: 0,
      tokens: 400,
      loops: [],
      record: {
        project: '/p',
        verdict: 'stopped_on_spend',
        summary: 'stopped on spend (budget reached), 1 tool call ran, 1,100 tokens of 1,000',
        toolCalls: 1,
        refusedCalls: 0,
        nudges: 0,
        stop: { on: 'spend', kind: 'cap', call: null },
        costUsd: null,
        switchedOff: false,
      },
    };
    // before: "loopguard's spend guard stopped it at call null and the transcript holds no stop: …"
    expect(recordDifference(session)).toBeUndefined();
  });
});

describe.each([
  ['command hooks', commandHook],
  ['the fast path', fastPath],
])("a Claude Code subagent's calls (%s)", (_door, door) => {
  it('are judged as a run of their own: a main thread and a subagent calling in turn make no oscillation', async () => {
    const dir = tempProject();
    const hook = door(dir);
    // each thread runs its check twice with the same result: fine alone, an A-B-A-B oscillation mixed
    const replies: string[] = [];
    for (const n of [1, 2]) {
      replies.push(await hook(bashCall(dir, 2 * n, 'npm run lint', 'lint: 0 problems')));
      replies.push(await hook(subagent(bashCall(dir, 2 * n + 1, 'npm test', 'tests: 12 passed'))));
    }
    expect(replies).toEqual(['', '', '', '']);
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([
      { session_id: 's1', steps: 4, nudges: 0, parent_session_id: null, agent_type: null },
      {
        session_id: 'a1f2e3d4c5b6a7980',
        steps: 4,
        nudges: 0,
        parent_session_id: 's1',
        agent_type: 'general-purpose',
      },
    ]);
    expect(entries).toEqual([]);
    expect(hookLog(dir)).toEqual([]);
  });

  it('replay a real 2.1.330 session (recorded): only its looping background subagent is nudged and stopped', async () => {
    const dir = tempProject();
    const hook = door(dir);
    const spoken: string[][] = [];
    for (const event of recordedEvents('claude-code-2.1.330-subagent.jsonl', dir, 's1')) {
      const reply = await hook(event);
      if (reply !== '')
        spoken.push([String(event.agent_id), String(event.hook_event_name), String(event.tool_use_id)]);
    }
    // the subagent's third failure is nudged, its fourth call refused; the main thread's calls in between are not judged
    expect(spoken).toEqual([
      ['a3eb67c6a05821e3c', 'PostToolUseFailure', 'toolu_6'],
      ['a3eb67c6a05821e3c', 'PreToolUse', 'toolu_8'],
    ]);
    expect(hookState(dir).sessions).toMatchObject([
      { session_id: 's1', parent_session_id: null, nudges: 0, stops: 0, tool_calls: 4 },
      { session_id: 'a3eb67c6a05821e3c', parent_session_id: 's1', nudges: 1, stops: 1, tool_calls: 3 },
    ]);
  });

  it('are nudged and stopped in their own run when they loop, while the main thread goes on unjudged', async () => {
    const dir = tempProject();
    const hook = door(dir);
    const mainReplies: string[] = [];
    const subagentReplies: string[] = [];
    for (let n = 1; n <= 5 && !subagentReplies.some((r) => r.includes('"continue":false')); n++) {
      mainReplies.push(await hook(bashCall(dir, 100 + n, `echo ${n} > file${n}.txt`, '')));
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      const before = await hook(subagent(pre));
      subagentReplies.push(before);
      if (before === '') subagentReplies.push(await hook(subagent(post)));
    }
    expect(mainReplies.every((reply) => reply === '')).toBe(true);
    const spoken = subagentReplies.filter((reply) => reply !== '').map((reply) => JSON.parse(reply));
    expect(spoken).toHaveLength(2);
    expect(spoken[0].hookSpecificOutput.additionalContext).toMatch(/^Loop detected \(same_error\): /);
    expect(spoken[1]).toMatchObject({
      continue: false,
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' },
    });
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([
      { session_id: 's1', nudges: 0, stops: 0, tool_calls: 4 },
      { session_id: 'a1f2e3d4c5b6a7980', parent_session_id: 's1', nudges: 1, stops: 1, tool_calls: 3 },
    ]);
    // the sessions view lists the subagent's run under its session, each with its own verdict
    expect(agentSessions(dir)).toEqual([
      {
        session_id: 'a1f2e3d4c5b6a7980',
        parent_session_id: 's1',
        agent_type: 'general-purpose',
        verdict: 'stopped',
      },
      { session_id: 's1', parent_session_id: null, agent_type: null, verdict: 'running' },
    ]);
    expect(entries.map((e) => [e.topic, e.related_tasks])).toEqual([
      ['loop_nudge', ['claude:a1f2e3d4c5b6a7980']],
      ['loop_stop', ['claude:a1f2e3d4c5b6a7980']],
    ]);
    // Claude Code ends only the subagent whose call is stopped: the model is told so
    expect(spoken[1].hookSpecificOutput.permissionDecisionReason).toContain(
      "loopguard refused this call and ended this subagent's run.",
    );
    expect(entries[1]?.metadata).toMatchObject({
      sessionId: 'a1f2e3d4c5b6a7980',
      parentSessionId: 's1',
      agentType: 'general-purpose',
      deniedBeforeRun: true,
    });
  });

  it("follow their session's switch: a session switched off leaves its subagents unjudged too", async () => {
    const dir = tempProject();
    const hook = door(dir);
    expect(await hook(bashCall(dir, 100, 'ls', 'a'))).toBe('');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    database.db.prepare("UPDATE hook_sessions SET enabled = 0 WHERE session_id = 's1'").run();
    database.close();
    for (const n of [1, 2, 3, 4, 5]) {
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      expect([await hook(subagent(pre)), await hook(subagent(post))]).toEqual(['', '']);
    }
    expect(hookState(dir).sessions).toHaveLength(1);
    expect(hookState(dir).entries).toEqual([]);
  });

  it('refuses an agent_id that is not a plain name (it names a file): silent, one log line', async () => {
    const dir = tempProject();
    const hook = door(dir);
    expect(await hook(subagent(bashCall(dir, 1, 'ls', 'a'), '../../etc/x'))).toBe('');
    expect(hookLog(dir)).toHaveLength(1);
    expect(hookLog(dir)[0]).toContain('failed open: event field agent_id must be');
  });

  it("count the subagent's replies, in its own transcript, against the session's budget, each once", async () => {
    const { dir, hook, main, folder, own } = budgetedSession(door);
    writeFileSync(main, reply('msg_1', 400, 'toolu_1'));
    writeFileSync(own, reply('msg_2', 200, 'toolu_2') + reply('msg_3', 200, 'toolu_3'));
    // another subagent's transcript is read too: 100
    writeFileSync(join(folder, 'agent-b2.jsonl'), reply('msg_4', 100, 'toolu_4'));
    writeFileSync(join(folder, 'agent-b2.meta.json'), '{"agentType":"Explore"}');
    const warning = JSON.parse(await hook(subagent(bashCall(dir, 3, 'ls', 'a'))));
    expect(warning.hookSpecificOutput.additionalContext).toContain(
      'you have used 900 of 1,000 tokens on this session (90 %)',
    );
    // the subagent's last reply comes after its last tool call: the main thread's next call counts it
    appendFileSync(own, reply('msg_5', 100, 'toolu_5'));
    const stop = JSON.parse(await hook(bashCall(dir, 1, 'ls -l', 'b')));
    expect(stop).toMatchObject({
      continue: false,
      stopReason: expect.stringContaining('this session reached its budget (1,000 of 1,000 tokens)'),
    });
    const { ledgers, entries } = spendState(dir);
    const byScope = Object.fromEntries(ledgers.map((l) => [l.scope, l]));
    expect(byScope['session:claude:s1']?.ledger.totals).toMatchObject({ replies: 5, tokens: 1000 });
    expect(byScope['subagent:claude:s1:a1f2e3d4c5b6a7980']).toMatchObject({
      ledger: { totals: { replies: 3, tokens: 500 } },
      offset: statSync(own).size,
    });
    expect(byScope['subagent:claude:s1:b2']?.ledger.totals).toMatchObject({ replies: 1, tokens: 100 });
    // each entry is its run's (codex64): the warning the subagent's, at its first call; the stop the session's
    expect(
      entries.map((e) => [e.topic, e.related_tasks, e.metadata.parentSessionId, e.metadata.toolCall]),
    ).toEqual([
      ['spend_warning', ['claude:a1f2e3d4c5b6a7980'], 's1', 1],
      ['spend_stop', ['claude:s1'], undefined, 1],
    ]);
    expect(hookLog(dir)).toEqual([]);
  });

  it('a session whose subagent reached its budget, then ended its turn with no further call, reads as stopped on spend in every door (sess66)', async () => {
    const { dir, hook, main, own, env } = budgetedSession(door);
    writeFileSync(main, reply('msg_1', 400, 'toolu_1'));
    writeFileSync(own, reply('msg_2', 700, 'toolu_2'));
    // the subagent's call crosses the session's budget: its run is stopped (Claude Code ends it alone)
    const stop = JSON.parse(await hook(subagent(bashCall(dir, 2, 'ls', 'a'))));
    expect(stop).toMatchObject({ continue: false });
    // the main thread reads the subagent's end and ends its turn: no further call
    expect(
      await hook(
        claudeEvent(dir, 's1', 'Stop', { last_assistant_message: 'Done.', stop_hook_active: false }),
      ),
    ).toBe('');
    const status = await loopguard(dir, ['status', '--json'], env);
    const sessions = (JSON.parse(status.stdout) as { sessions: { sessions: Array<Record<string, unknown>> } })
      .sessions.sessions;
    const session = sessions.find((s) => s.sessionId === 's1' && s.parentSessionId === null);
    // before: "no loop found", its budget reached and spent past with no word of a stop
    expect(session).toMatchObject({ verdict: 'stopped_on_spend' });
    expect(session?.summary).toMatch(/^stopped on spend \(budget reached\)/);
  });

  it("a session whose main thread's last reply reached the budget (counted only) and whose subagent's next call is denied reads as stopped on spend (sess66)", async () => {
    const { dir, hook, main, own, env } = budgetedSession(door);
    writeFileSync(main, reply('msg_1', 400, 'toolu_1'));
    writeFileSync(own, reply('msg_2', 300, 'toolu_2'));
    expect(await hook(subagent(bashCall(dir, 2, 'ls', 'a')))).toBe('');
    // the main thread's closing reply takes the session past its budget: its turn's end only counts
    appendFileSync(main, reply('msg_3', 400, 'toolu_3'));
    await hook(claudeEvent(dir, 's1', 'Stop', { last_assistant_message: 'Done.', stop_hook_active: false }));
    // the subagent, still running, asks for its next call: denied before it runs
    appendFileSync(own, reply('msg_4', 10, 'toolu_4'));
    const denied = JSON.parse(
      await hook(
        subagent(
          claudeEvent(dir, 's1', 'PreToolUse', {
            tool_name: 'Bash',
            tool_input: { command: 'ls -l', description: 'check' },
            tool_use_id: 'toolu_4',
          }),
        ),
      ),
    );
    expect(denied).toMatchObject({ continue: false });
    const status = await loopguard(dir, ['status', '--json'], env);
    const sessions = (JSON.parse(status.stdout) as { sessions: { sessions: Array<Record<string, unknown>> } })
      .sessions.sessions;
    const session = sessions.find((s) => s.sessionId === 's1' && s.parentSessionId === null);
    expect(session).toMatchObject({ verdict: 'stopped_on_spend' });
  });

  it("cannot be spoken for by another session: a file named after another session's subagent moves nothing of it (trust42)", async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 100000\n');
    const victim = trustedTranscript(dir, 's2');
    const attacker = trustedTranscript(dir, 's1');
    const door_ = door(dir, victim.env);
    const victimId = 'a0123456789abcdef';
    const victimOwn = join(dirname(victim.path), 's2', 'subagents', `agent-${victimId}.jsonl`);
    mkdirSync(dirname(victimOwn), { recursive: true });
    writeFileSync(victim.path, '');
    writeFileSync(victimOwn, reply('msg_v1', 300, 'toolu_1'));
    const victimCall = (n: number) =>
      door_({
        ...subagent(bashCall(dir, n, `ls ${n}`, 'a'), victimId),
        session_id: 's2',
        transcript_path: victim.path,
      });
    await victimCall(1);
    // The model of session s1 writes, in its own session's folder, a file named after s2's subagent,
    // as long as that subagent's transcript will be after its next reply.
    const next = reply('msg_v2', 300, 'toolu_2');
    const forged = join(dirname(attacker.path), 's1', 'subagents', `agent-${victimId}.jsonl`);
    mkdirSync(dirname(forged), { recursive: true });
    writeFileSync(forged, '\n'.repeat(statSync(victimOwn).size + Buffer.byteLength(next)));
    writeFileSync(attacker.path, `${JSON.stringify({ type: 'user', tool_use_id: 'toolu_7' })}\n`);
    await door_({ ...bashCall(dir, 7, 'pwd', 'b'), session_id: 's1', transcript_path: attacker.path });
    appendFileSync(victimOwn, next);
    await victimCall(2);
    const byScope = Object.fromEntries(spendState(dir).ledgers.map((l) => [l.scope, l]));
    expect(byScope['session:claude:s2']?.ledger.totals).toMatchObject({ replies: 2, tokens: 600 });
    expect(byScope['session:claude:s1']?.ledger.totals ?? { tokens: 0 }).toMatchObject({ tokens: 0 });
  });
});

/** The rows of the `agent_sessions` view, by session id. */
function agentSessions(dir: string) {
  const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { readonly: true });
  try {
    return database.db
      .prepare(
        'SELECT session_id, parent_session_id, agent_type, verdict FROM agent_sessions ORDER BY session_id',
      )
      .all();
  } finally {
    database.close();
  }
}

/** A reply of `tokens` input tokens asking for tool call `toolUseId`, as Claude Code writes it: one record per content block. */
function reply(id: string, tokens: number, toolUseId: string): string {
  const record = {
    type: 'assistant',
    timestamp: '2026-11-28T10:00:00.000Z',
    message: {
      id,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      usage: { input_tokens: tokens, output_tokens: 0 },
      content: [{ type: 'tool_use', id: toolUseId, name: 'Bash', input: {} }],
    },
  };
  return `${JSON.stringify(record)}\n`.repeat(2);
}
