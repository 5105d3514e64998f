import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HookSessionRecord, openLoopGuardDatabase } from '@loopguard/sqlite';
import { execa } from 'execa';
import { guardSession } from '../src/hook/guardSession.js';
import type { HookEvent } from '../src/hook/hookEvent.js';
import { bin } from './runHelpers.js';

/** A temporary project directory. */
export function tempProject(): string {
  return mkdtempSync(join(tmpdir(), 'loopguard-hook-'));
}

/** Runs `loopguard hook <agent>` in `cwd` with `event` (an object, or raw text) on stdin. */
export async function hookCall(cwd: string, agent: string, event: unknown, env: Record<string, string> = {}) {
  const result = await execa(process.execPath, [bin, 'hook', agent], {
    cwd,
    reject: false,
    input: typeof event === 'string' ? event : JSON.stringify(event),
    env: { CLAUDE_PROJECT_DIR: '', GEMINI_PROJECT_DIR: '', LOOPGUARD_HOOK: '', ...env },
  });
  return { code: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** A Claude Code event of `session` in `cwd`, as 2.1.330 sends it (see fixtures/hooks). */
export function claudeEvent(
  cwd: string,
  session: string,
  name: string,
  fields: Record<string, unknown> = {},
) {
  return {
    session_id: session,
    transcript_path: join(cwd, 'transcript.jsonl'),
    cwd,
    permission_mode: 'bypassPermissions',
    hook_event_name: name,
    ...fields,
  };
}

/** A Claude Code Bash call that fails the same way: the `PreToolUse` and `PostToolUseFailure` events, its input and error. */
export function claudeFailingCall(cwd: string, session: string, n: number, command = 'cat missing.txt') {
  const tool = {
    tool_name: 'Bash',
    tool_input: { command, description: `try ${n}` },
    tool_use_id: `toolu_${n}`,
  };
  const error = `Exit code 1\ncat: ${command.split(' ')[1]}: No such file or directory`;
  return {
    pre: claudeEvent(cwd, session, 'PreToolUse', tool),
    post: claudeEvent(cwd, session, 'PostToolUseFailure', { ...tool, error, is_interrupt: false }),
    /** The call's input and the error its failure reports, as the transcript holds them. */
    input: tool.tool_input,
    error,
  };
}

/**
 * The replies of the hook's modules, run in this process, to four failing Bash calls of one session
 * (`claudeFailingCall`) in a project of their own, with that project's path written as `project`:
 * what every way of starting the hook must answer for the same calls in `project`.
 */
export async function moduleRepliesToFailingCalls(project: string): Promise<string[]> {
  const { runHook } = await import('../src/hook/runHook.js');
  const viaModules = tempProject();
  const replies: string[] = [];
  for (const call of [1, 2, 3, 4].map((n) => claudeFailingCall(viaModules, 's1', n))) {
    for (const event of [call.pre, call.post]) {
      let out = '';
      await runHook('claude', {
        readStdin: async () => JSON.stringify(event),
        stdout: (text) => {
          out += text;
        },
        env: {},
        cwd: viaModules,
      });
      replies.push(out.replaceAll(viaModules, project));
    }
  }
  return replies;
}

let geminiStamp = 0;

/**
 * A Gemini CLI event of `session` in `cwd`, as 0.61.0 sends it (see fixtures/hooks): each event
 * stamped with its own `timestamp` (the same for every hook of one event).
 */
export function geminiEvent(
  cwd: string,
  session: string,
  name: string,
  fields: Record<string, unknown> = {},
) {
  return {
    session_id: session,
    transcript_path: join(cwd, 'session.jsonl'),
    cwd,
    hook_event_name: name,
    timestamp: new Date(Date.UTC(2026, 10, 24, 3, 20, 21) + ++geminiStamp).toISOString(),
    ...fields,
  };
}

/** A rollout line as Codex 0.169.0 writes it. */
export const codexRolloutLine = (
  type: string,
  payload: Record<string, unknown>,
  at = '2026-11-29T08:00:00.000Z',
) => `${JSON.stringify({ timestamp: at, type, payload })}\n`;

/** The rollout line of shell call `id` running `cmd`, written before Codex runs its hooks. */
export const codexFunctionCall = (id: string, cmd: string) =>
  codexRolloutLine('response_item', {
    type: 'function_call',
    name: 'exec_command',
    arguments: JSON.stringify({ cmd }),
    call_id: id,
  });

/** The rollout line of shell call `id`'s output (exit `code`), written after its `PostToolUse`. */
export const codexCallOutput = (id: string, code: number, output: string) =>
  codexRolloutLine('response_item', {
    type: 'function_call_output',
    call_id: id,
    output: `Chunk ID: ${id}\nWall time: 0.0000 seconds\nProcess exited with code ${code}\nOriginal token count: 9\nOutput:\n${output}`,
  });

/**
 * Codex's hook event `name` of shell call `id` (session `s1`, `cat missing.txt`) run in `cwd`, as
 * 0.169.0 sends it; `extra` adds or overrides fields.
 */
export function codexEvent(
  cwd: string,
  rollout: string,
  name: string,
  id: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    session_id: 's1',
    turn_id: 't1',
    transcript_path: rollout,
    cwd,
    hook_event_name: name,
    model: 'gpt-scripted',
    permission_mode: 'bypassPermissions',
    tool_name: 'Bash',
    tool_input: { command: 'cat missing.txt' },
    tool_use_id: id,
    ...extra,
  };
}

/**
 * Codex's `PreToolUse` of a shell call in `cwd` (session `c1`, call `call_1`), as Codex 0.169.0 sends
 * it, with an empty rollout written beside it.
 */
export function codexShellCall(cwd: string, command: string) {
  const rollout = join(cwd, 'rollout.jsonl');
  writeFileSync(rollout, '');
  return codexEvent(cwd, rollout, 'PreToolUse', 'call_1', { session_id: 'c1', tool_input: { command } });
}

/** The recorded events of a real CLI session (one JSON object per line), rewritten to `cwd` and `session`. */
export function recordedEvents(file: string, cwd: string, session: string): Record<string, unknown>[] {
  return readFileSync(new URL(`./fixtures/hooks/${file}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => ({ ...JSON.parse(line), cwd, session_id: session }));
}

/** The project's hook sessions and step-loop entries. */
export function hookState(cwd: string) {
  const database = openLoopGuardDatabase(join(cwd, '.loopguard', 'state.db'), { readonly: true });
  const { db } = database;
  try {
    // rows created in the same millisecond: a session before its subagents (the table has no insertion order)
    const sessions = db
      .prepare('SELECT * FROM hook_sessions ORDER BY created_at, parent_session_id IS NOT NULL, session_id')
      .all() as Array<Record<string, unknown>>;
    const entries = (
      db
        .prepare(
          "SELECT topic, content, related_tasks, metadata FROM context_entries WHERE topic IN ('loop_nudge', 'loop_stop') ORDER BY id",
        )
        .all() as Array<{ topic: string; content: string; related_tasks: string; metadata: string }>
    ).map((e) => ({ ...e, related_tasks: JSON.parse(e.related_tasks), metadata: JSON.parse(e.metadata) }));
    return { sessions, entries };
  } finally {
    database.close();
  }
}

/** Each session's agent and verdict as every door reads it (the view `agent_sessions`), oldest first. */
export function sessionVerdicts(cwd: string): Array<[string, string]> {
  const database = openLoopGuardDatabase(join(cwd, '.loopguard', 'state.db'), { readonly: true });
  try {
    return (
      database.db.prepare('SELECT agent, verdict FROM agent_sessions ORDER BY started_at').all() as Array<{
        agent: string;
        verdict: string;
      }>
    ).map((s) => [s.agent, s.verdict]);
  } finally {
    database.close();
  }
}

/** The project's spend ledgers and spend entries (`spend_warning`, `spend_stop`), oldest first. */
export function spendState(cwd: string) {
  const database = openLoopGuardDatabase(join(cwd, '.loopguard', 'state.db'), { readonly: true });
  try {
    const ledgers = database.db
      .prepare('SELECT scope, ledger, offset FROM spend_ledgers ORDER BY scope')
      .all() as Array<{
      scope: string;
      ledger: string;
      offset: number;
    }>;
    const entries = (
      database.db
        .prepare(
          "SELECT topic, content, related_tasks, metadata FROM context_entries WHERE topic IN ('spend_warning', 'spend_stop') ORDER BY id",
        )
        .all() as Array<{ topic: string; content: string; related_tasks: string; metadata: string }>
    ).map((e) => ({ ...e, related_tasks: JSON.parse(e.related_tasks), metadata: JSON.parse(e.metadata) }));
    return { ledgers: ledgers.map((l) => ({ ...l, ledger: JSON.parse(l.ledger) })), entries };
  } finally {
    database.close();
  }
}

/** The lines of the project's `.loopguard/hook.log` (none when it does not exist). */
export function hookLog(cwd: string): string[] {
  try {
    return readFileSync(join(cwd, '.loopguard', 'hook.log'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Where Claude Code would keep session `session`'s transcript for project `dir` under a config dir
 * of the test's own (`CLAUDE_CONFIG_DIR`): the one transcript loopguard's MCP server reads for it.
 */
export function trustedTranscript(
  dir: string,
  session = 's1',
): { path: string; env: { CLAUDE_CONFIG_DIR: string } } {
  const config = join(dir, '.claude-config');
  const folder = join(config, 'projects', dir.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(folder, { recursive: true });
  return { path: join(folder, `${session}.jsonl`), env: { CLAUDE_CONFIG_DIR: config } };
}

/**
 * The line Claude Code sends loopguard's MCP server for one hook event: a `tools/call` of its
 * `hook` tool whose arguments are the event's fields, each a string (objects as JSON), as its
 * `mcp_tool` hooks fill them.
 */
export function mcpHookCall(event: Record<string, unknown>, id = 1): Buffer {
  const args = Object.fromEntries(
    Object.entries(event).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hook', arguments: args } };
  return Buffer.from(`${JSON.stringify(message)}\n`);
}

/** Makes `dir` a repository that ships a `.loopguard` (a `state.db` in it) tracked by git, which the hooks refuse (trust44). */
export function shipTrackedLoopguard(dir: string): void {
  mkdirSync(join(dir, '.loopguard'));
  writeFileSync(join(dir, '.loopguard', 'state.db'), 'shipped\n');
  execFileSync('git', ['add', '-f', '.loopguard'], { cwd: dir });
  execFileSync('git', ['commit', '-qm', 'ship .loopguard'], { cwd: dir });
}

/**
 * A Claude Code session judged in memory, as the command hook judges it (the detector restored from
 * the session's stored row at every event).
 */
export function inMemorySession() {
  const context = { agent: 'claude' as const, detector: {}, record() {}, now: () => 0 };
  let calls = 0;
  const base = () => ({ sessionId: 's1', projectDir: '/p', eventName: 'PreToolUse', callId: `c${++calls}` });
  return {
    /** One tool call's two events: before it runs, then with its result. */
    call: (tool: string, input: unknown, output: string, error = false): HookEvent[] => [
      { ...base(), kind: 'before_tool', tool, input },
      { ...base(), eventName: 'PostToolUse', kind: 'after_tool', tool, input, output, error },
    ],
    /** Feeds `events` to the session up to a stop; the reply kinds (`denied` for a stop before the call), and its row. */
    drive: (events: HookEvent[]) => {
      let session: HookSessionRecord | null = null;
      const replies: string[] = [];
      for (const event of events) {
        const { result, next } = guardSession(event, session, context);
        if (next !== undefined) session = { ...next, createdAt: 0, updatedAt: 0 };
        replies.push(result.kind === 'stop' && result.denied ? 'denied' : result.kind);
        if (result.kind === 'stop') break; // the session ends
      }
      return { replies, session };
    },
    context,
  };
}

/** A shell call of `command` before it runs, in the project `projectDir`, as the rules read it. */
export const shellCall = (command: string, projectDir = '/repo'): HookEvent => ({
  kind: 'before_tool',
  tool: 'shell',
  input: { command },
  projectDir,
  sessionId: 's',
  callId: 'c',
  eventName: 'PreToolUse',
});
