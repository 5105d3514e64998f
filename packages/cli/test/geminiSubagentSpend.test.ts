import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { runCli } from '../src/main.js';
import { joinedChats } from '../src/scan/joinedChats.js';
import { recordDifference } from '../src/scan/recordDifference.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import type { SessionRecord } from '../src/scan/sessionRecord.js';
import { bufferedIo } from './helpers.js';
import { geminiEvent, spendState } from './hookHelpers.js';

// Gemini CLI (0.61.0) sends a subagent's hook events with the session's id and the session's chat as
// `transcript_path`, and writes the subagent's replies to a chat of its own, filed under the
// session's (`chats/<session id>/<agent id>.jsonl`). The spend guard read the main chat only: a
// subagent's dollars were in no budget (sess64).

const SESSION = '510d2a4f-ad07-4dc7-86a2-5e1c08e23772';

/** A chat record of a model reply as Gemini CLI 0.61.0 writes it. */
const reply = (id: string, input: number) =>
  `${JSON.stringify({
    id,
    timestamp: '2026-11-30T22:28:57.576Z',
    type: 'gemini',
    content: '',
    tokens: { input, output: 1, cached: 0, thoughts: 0, tool: 0, total: input + 1 },
    model: 'gemini-2.5-flash',
  })}\n`;

/**
 * A project with a session budget (`maxCostUsd`), the session's main chat and its subagent's, each
 * with one reply, filed as Gemini CLI files them (`tmp/<name>/chats/`, its `.project_root`).
 */
function project(subagentTokens: number, maxCostUsd = 0.5): { dir: string; chat: string; chats: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-gemini-spend-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), `spend:\n  session:\n    maxCostUsd: ${maxCostUsd}\n`);
  const chats = join(mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-')), 'tmp', 'proj', 'chats');
  mkdirSync(join(chats, SESSION), { recursive: true });
  writeFileSync(join(chats, '..', '.project_root'), dir);
  const header = (kind: string) =>
    `${JSON.stringify({ sessionId: SESSION, projectHash: 'b105', startTime: '2026-11-30T22:28:57.532Z', kind })}\n`;
  const chat = join(chats, 'session-2026-11-30T22-28-510d2a4f.jsonl');
  writeFileSync(chat, header('main') + reply('m1', 1_000));
  writeFileSync(join(chats, SESSION, 'k3x9q2.jsonl'), header('subagent') + reply('s1', subagentTokens));
  return { dir, chat, chats };
}

/** The subagent's shell call, after it ran: its hook event names the session and its chat. */
async function subagentCall(dir: string, chat: string, n: number): Promise<string> {
  const call = { tool_name: 'run_shell_command', tool_input: { command: `ls src/${n}` } };
  const response = { llmContent: `Output: file${n}.ts\nExit Code: 0`, returnDisplay: `file${n}.ts` };
  const event = geminiEvent(dir, SESSION, 'AfterTool', {
    ...call,
    tool_response: response,
    transcript_path: chat,
  });
  return answerHookEvent('gemini', JSON.stringify(event), { env: {}, cwd: dir });
}

describe("a Gemini CLI subagent's dollars", () => {
  it("count in its session's budget: the subagent's call past the budget stops the session on spend, and every door says it", async () => {
    const { dir, chat } = project(2_000_000);
    const reply = JSON.parse(await subagentCall(dir, chat, 1));
    expect(reply).toMatchObject({ continue: false, stopReason: expect.stringMatching(/reached its budget/) });
    expect(spendState(dir).entries.map((e) => e.topic)).toContain('spend_stop');
    // the stop does not end a Gemini CLI subagent: it asks again, and its call is denied before it runs
    const again = {
      tool_name: 'run_shell_command',
      tool_input: { command: 'ls src/2' },
      transcript_path: chat,
    };
    const denied = await answerHookEvent(
      'gemini',
      JSON.stringify(geminiEvent(dir, SESSION, 'BeforeTool', again)),
      {
        env: {},
        cwd: dir,
      },
    );
    expect(JSON.parse(denied)).toMatchObject({ decision: 'deny' });
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    await runCli(['status', '--json'], io);
    const [session] = (JSON.parse(io.out()) as { sessions: { sessions: Array<Record<string, unknown>> } })
      .sessions.sessions;
    expect(session).toMatchObject({ agent: 'gemini', verdict: 'stopped_on_spend' });
    expect(session?.summary).toMatch(
      /^stopped on spend at call 1 \(budget reached\), 1 tool call ran, 1 more call refused after the stop, \$0\.\d+ of \$0\.50$/,
    );
  });

  it('numbers each call refused after the stop on its own, as the calls the model made (each one more)', async () => {
    const { dir, chat } = project(2_000_000);
    await subagentCall(dir, chat, 1);
    for (const n of [2, 3, 4]) {
      const call = {
        tool_name: 'run_shell_command',
        tool_input: { command: `ls src/${n}` },
        transcript_path: chat,
      };
      const denied = await answerHookEvent(
        'gemini',
        JSON.stringify(geminiEvent(dir, SESSION, 'BeforeTool', call)),
        { env: {}, cwd: dir },
      );
      expect(JSON.parse(denied)).toMatchObject({ decision: 'deny' });
    }
    // the main thread's `invoke_agent` ends after the subagent's run: its call, the 5th, and its stop there
    await subagentCall(dir, chat, 5);
    // before: the stop at call 1, then every denial at call 2, and the main thread's at call 2 too
    const calls = spendState(dir).entries.map((e) => e.metadata.toolCall as number);
    expect(calls.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    await runCli(['status', '--json'], io);
    const [session] = (JSON.parse(io.out()) as { sessions: { sessions: Array<Record<string, unknown>> } })
      .sessions.sessions;
    // the calls that ran stay those that ran
    expect(session?.summary).toMatch(
      /^stopped on spend at call 1 \(budget reached\), 2 tool calls ran, 3 more calls refused after the stop, stopped again at call 5, /,
    );
  });

  it('a subagent under the budget is counted, not stopped', async () => {
    const { dir, chat } = project(10_000);
    expect(await subagentCall(dir, chat, 1)).toBe('');
    const [ledger] = spendState(dir).ledgers.filter((l) => l.scope === `session:gemini:${SESSION}`);
    expect(ledger?.ledger.totals.tokens).toBe(1_001 + 10_001);
  });

  it("scan compares the record's dollars with the session's chats joined, the subagent's with the main one's", async () => {
    const { dir, chat, chats } = project(2_000_000, 100);
    expect(await subagentCall(dir, chat, 1)).toBe('');
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    await runCli(['scan', chats, '--json'], io);
    const report = JSON.parse(io.out()) as {
      sessions: Array<{ sessionId: string; parentSessionId?: string; recordDiffers?: string }>;
    };
    const main = report.sessions.find((s) => s.sessionId === SESSION && s.parentSessionId === undefined);
    // the record counted both chats' replies: so does the comparison (before, the main chat's alone)
    expect(main?.recordDiffers).toBe("loopguard's hooks saw 1 tool call run, the transcript holds 0");
  });
});

// gemscan65: written by the real Gemini CLI 0.61.0 (geminiSubagents.e2e's "dollars" test): a
// `generalist` subagent's three `ls` calls, the spend stop after the third (its session at $0.36 of
// $0.30), then 18 calls denied before they ran, each with the spend guard's words. The hooks never
// ran nor judged those: `status` reads "stopped on spend at call 3 (budget reached), 4 tool calls
// ran, 18 more calls refused after the stop, stopped again at call 4, 1 nudge, $1.98 of $0.30".
describe("scan of a Gemini CLI session stopped on spend in its subagent's run (gemscan65)", () => {
  const STOPPED = 'e2abf9c9-845c-43cf-bae2-2f57747b0220';
  const fixture = (name: string) => new URL(`./fixtures/gemini/${name}`, import.meta.url);
  /** The session's two chats as Gemini CLI filed them, in a project that keeps no record of them. */
  function chats(): string {
    const root = mkdtempSync(join(tmpdir(), 'loopguard-gemscan65-'));
    const folder = join(mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-')), 'tmp', 'proj', 'chats');
    mkdirSync(join(folder, STOPPED), { recursive: true });
    writeFileSync(join(folder, '..', '.project_root'), root);
    copyFileSync(
      fixture('gemini-0.61.0-subagent-spend-main.jsonl'),
      join(folder, 'session-2026-12-01T01-13-e2abf9c9.jsonl'),
    );
    copyFileSync(
      fixture('gemini-0.61.0-subagent-spend.jsonl'),
      join(folder, STOPPED, 'a283f068-44d0-4e5d-b56a-e7f6335e7292.jsonl'),
    );
    return folder;
  }

  it('counts the calls refused after the stop as denied, and finds no loop in them', async () => {
    const folder = chats();
    const io = bufferedIo({ env: { NO_COLOR: '1' } });
    await runCli(['scan', folder, '--json'], io);
    const report = JSON.parse(io.out()) as ScanReport;
    const subagent = report.sessions.find((s) => s.parentSessionId === STOPPED);
    expect(subagent).toMatchObject({ toolCalls: 3, deniedCalls: 18, spendStop: { call: 3 } });
    // before: a same_error loop replayed over the denied calls, "stopped" at call 7
    expect(subagent?.loops.filter((loop) => loop.stopStep !== null)).toEqual([]);
    expect(report.totals).toMatchObject({ deniedCalls: 18, wastedToolCalls: 0 });
    const text = bufferedIo({ env: { NO_COLOR: '1' } });
    await runCli(['scan', folder], text);
    expect(text.out()).not.toContain('looped where loopguard would have stopped it');
    // and says them as status does, after the stop (before: "18 refused by loopguard" only, in the first line)
    expect(subagent?.spendStop?.deniedAfter).toBe(18);
    expect(text.out()).toMatch(
      /at its budget \(the transcript holds its stop\), 18 more calls refused after the stop\.\n/,
    );
  });

  it('counts the session once, its subagent under it, where no state.db records it (as with one)', async () => {
    const io = bufferedIo({ env: { NO_COLOR: '1' } });
    await runCli(['scan', chats(), '--json'], io);
    // before: 2, the main chat (its `invoke_agent` result holds the stop) and the subagent's
    expect((JSON.parse(io.out()) as ScanReport).totals.stoppedOnSpendByLoopguard).toBe(1);
    const text = bufferedIo({ env: { NO_COLOR: '1' } });
    await runCli(['scan', chats()], text);
    expect(text.out()).toContain("loopguard's spend guard stopped 1 session at its budget");
  });

  it("compares the record's spend stop with the session's chats joined: the subagent's stop, not the main chat's later one", async () => {
    const folder = chats();
    const io = bufferedIo({ env: { NO_COLOR: '1' } });
    await runCli(['scan', folder, '--json'], io);
    const sessions = (JSON.parse(io.out()) as ScanReport).sessions;
    const main = sessions.find((s) => s.sessionId === STOPPED && s.parentSessionId === undefined);
    const subagent = sessions.find((s) => s.parentSessionId === STOPPED);
    if (main === undefined || subagent === undefined) throw new Error('both chats are sessions');
    // the record `status` read of that session
    const record: SessionRecord = {
      project: String(main.project),
      verdict: 'stopped_on_spend',
      summary: 'stopped on spend at call 3 (budget reached), 4 tool calls ran, …',
      toolCalls: 4,
      refusedCalls: 0,
      nudges: 1,
      stop: { on: 'spend', kind: 'cap', call: 3 },
      costUsd: 1.980055,
      switchedOff: false,
    };
    // the main chat's `invoke_agent` result holds the stop answered after it (its call 1, the session's 4th)
    expect(main.spendStop?.call).toBe(1);
    const joined = joinedChats({ ...main, record }, [subagent], 3);
    expect(joined.spendStop?.call).toBe(3);
    // before: "loopguard's spend guard stopped it at call 3 and the transcript holds its spend stop at call 1"
    expect(recordDifference(joined, subagent.costUsd ?? 0)).toBeUndefined();
  });
});
