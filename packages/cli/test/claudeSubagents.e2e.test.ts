import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanReport } from '../src/scan/scanReport.js';
import { ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { hookLog, hookState, spendState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';

// A real Claude Code (2.1.330), offline against a scripted Messages API on 127.0.0.1, whose main
// thread starts a subagent (the Agent tool: in the background, 2.1.330's default, the main thread
// making progress meanwhile; or in the foreground, the main thread making progress after it) while
// the subagent runs the same failing command again and again.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

/** What the subagent is asked: its conversation is told apart from the main thread's by it. */
const SUBTASK = 'SUBTASK: read missing.txt';

/** How the main thread starts its subagent. */
type Start = 'background' | 'foreground';

/** The main thread: start the subagent, write three files, done. */
const mainThread =
  (start: Start) =>
  (turn: number): ScriptedTurn =>
    turn === 0
      ? {
          tool: 'Agent',
          input: {
            description: 'Read the file',
            prompt: SUBTASK,
            subagent_type: 'general-purpose',
            run_in_background: start === 'background',
          },
        }
      : turn < 4
        ? { tool: 'Bash', input: { command: `echo ${turn} > file${turn}.txt`, description: `Write ${turn}` } }
        : { text: 'Main thread done.' };

/** The subagent: the same failing command, until it is stopped. */
const loopingSubagent = (turn: number): ScriptedTurn =>
  turn < 8
    ? { tool: 'Bash', input: { command: 'cat missing.txt', description: 'Read the file' } }
    : { text: 'Subagent done.' };

const isSubagent = (messages: unknown[] | undefined) => JSON.stringify(messages?.[0] ?? '').includes(SUBTASK);

/** Installs loopguard's hooks (`mode`) with a budget no reply reaches, and runs `claude -p`. */
async function sessionWithSubagent(mode: 'command' | 'mcp', start: Start) {
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
  writeFileSync(
    join(dir, 'loopguard.config.yaml'),
    'spend:\n  session:\n    maxTokens: 100000000\n    maxCostUsd: 100\n',
  );
  const init = await loopguard(dir, ['init', 'claude', ...(mode === 'command' ? ['--command-hooks'] : [])], {
    HOME: home,
  });
  expect(init.code, init.stderr).toBe(0);
  const api = await startFakeAnthropicApi((turn, body) =>
    isSubagent(body.messages) ? loopingSubagent(turn) : mainThread(start)(turn),
  );
  try {
    const { result, resultLine } = await runClaudePrint(claude, dir, api.url, home);
    const projects = join(home, '.claude', 'projects');
    const transcripts = readdirSync(projects, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => ({ file, text: readFileSync(join(projects, file), 'utf8') }));
    const received = api.conversations.map((c) => ({ subagent: isSubagent(c), text: JSON.stringify(c) }));
    return { dir, home, result, resultLine, transcripts, received };
  } finally {
    await api.close();
  }
}

/** The distinct reply ids of a Claude Code transcript's `assistant` records. */
function replyIds(text: string): Set<string> {
  const ids = text
    .split('\n')
    .filter((line) => line.includes('"assistant"'))
    .map((line) => JSON.parse(line) as { type?: string; message?: { id?: string } })
    .filter((record) => record.type === 'assistant' && record.message?.id !== undefined)
    .map((record) => record.message?.id as string);
  return new Set(ids);
}

describe.each([
  ['command', 'background'],
  ['mcp', 'background'],
  ['mcp', 'foreground'],
] as const)('a Claude Code subagent that loops, %s hooks, in the %s', (mode, start) => {
  it('is nudged and stopped in its own run; the main thread is never judged and completes; its replies count against the session', async () => {
    const { dir, home, result, resultLine, transcripts, received } = await sessionWithSubagent(mode, start);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(resultLine).toMatchObject({ subtype: 'success', terminal_reason: 'completed' });

    // the subagent: nudged after its 3rd failure (in its next request), its 4th call denied, then it ends
    const subagent = received.filter((r) => r.subagent).map((r) => r.text);
    expect(subagent).toHaveLength(4);
    expect(subagent.findIndex((text) => text.includes('Loop detected'))).toBe(3);
    expect(subagent[3]).toMatch(/hook additional context: Loop detected \(same_error\): /);
    // the main thread: never nudged, made all its calls
    const main = received.filter((r) => !r.subagent).map((r) => r.text);
    expect(main.length).toBeGreaterThanOrEqual(5);
    expect(main.some((text) => text.includes('Loop detected'))).toBe(false);
    expect(readdirSync(dir).filter((f) => /^file\d\.txt$/.test(f))).toHaveLength(3);

    const { sessions, entries } = hookState(dir);
    const sessionId = resultLine.session_id;
    const [mainRow, subagentRow] = [
      sessions.find((s) => s.parent_session_id === null),
      sessions.find((s) => s.parent_session_id !== null),
    ];
    expect(sessions).toHaveLength(2);
    expect(mainRow).toMatchObject({ session_id: sessionId, nudges: 0, stops: 0, tool_calls: 4 });
    expect(subagentRow).toMatchObject({
      parent_session_id: sessionId,
      agent_type: 'general-purpose',
      nudges: 1,
      stops: 1,
      tool_calls: 3,
    });
    const agentId = subagentRow?.session_id as string;
    expect(agentId).toMatch(/^a[0-9a-f]+$/);
    expect(entries.map((e) => [e.topic, e.related_tasks])).toEqual([
      ['loop_nudge', [`claude:${agentId}`]],
      ['loop_stop', [`claude:${agentId}`]],
    ]);
    expect(entries[1]?.metadata).toMatchObject({ parentSessionId: sessionId, deniedBeforeRun: true });
    // where Claude Code writes the subagent's transcript, and what it says of the stop
    const own = transcripts.find((t) => t.file.endsWith(`${sessionId}/subagents/agent-${agentId}.jsonl`));
    expect(own?.text).toMatch(/hook stopped continuation: loopguard: Stopped \(same_error\): /);

    // every reply of both threads counted once against the session, the subagent's from its own transcript
    const mainReplies = replyIds(transcripts.find((t) => t.file.endsWith(`${sessionId}.jsonl`))?.text ?? '');
    const subagentReplies = replyIds(own?.text ?? '');
    expect(subagentReplies.size).toBe(4);
    const ledgers = Object.fromEntries(spendState(dir).ledgers.map((l) => [l.scope, l.ledger]));
    expect(ledgers[`session:claude:${sessionId}`]?.totals.replies).toBe(
      mainReplies.size + subagentReplies.size,
    );
    expect(ledgers[`subagent:claude:${sessionId}:${agentId}`]?.totals.replies).toBe(subagentReplies.size);
    expect(hookLog(dir)).toEqual([]);

    // scan tells what the other doors tell: the session's dollars are its subagent's too (sessions50:
    // it read them as a difference of prices), and the subagent is its own run, stopped at call 4
    const scanned = await loopguard(dir, ['scan', '--json', '--no-cache'], { HOME: home });
    expect(scanned.code, scanned.stderr).toBe(0);
    const scannedSessions = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    const scannedMain = scannedSessions.find((s) => s.sessionId === sessionId);
    expect(scannedMain?.record?.summary).toMatch(
      /^no loop found, 4 tool calls ran, \$.*; 1 subagent stopped by loopguard$/,
    );
    expect(scannedMain?.recordDiffers).toBeUndefined();
    const scannedSubagent = scannedSessions.find((s) => s.sessionId === agentId);
    expect(scannedSubagent?.record?.summary).toBe(
      'stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 nudge',
    );
    expect(scannedSubagent?.recordDiffers).toBeUndefined();
  }, 600_000);
});
