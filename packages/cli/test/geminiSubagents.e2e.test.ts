import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanReport } from '../src/scan/scanReport.js';
import { type GeminiTurn, startFakeGeminiApi } from './fakeGeminiApi.js';
import { ensureGeminiCli, runGeminiPrint } from './geminiCli.js';
import { hookLog, hookState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';
import { expectStatusAndDashboard } from './sessionStory.js';

// A real Gemini CLI 0.61.0, offline against a scripted Gemini API on 127.0.0.1, whose model hands
// the task to its built-in `generalist` subagent (`invoke_agent`).
let gemini = '';
beforeAll(async () => {
  gemini = await ensureGeminiCli();
}, 900_000);

const TASK = 'Find why missing.txt cannot be read.';

describe('a Gemini CLI subagent with a real Gemini CLI (offline)', () => {
  it("counts the subagent's calls in its session's run, as Gemini CLI's hooks name them; scan files its chat under the session (polish62) and tells the session as they do (geminiscan63)", async () => {
    const { dir } = tempRepo('');
    const init = await loopguard(dir, ['init', 'gemini', '--project']);
    expect(init.code, init.stderr).toBe(0);
    const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
    const asked: string[] = [];
    // the subagent's conversation starts with its task; the main one with the user's prompt
    const script = (turn: number, contents: unknown[]): GeminiTurn => {
      const first = JSON.stringify(contents[0] ?? '');
      const subagent = first.includes(TASK);
      asked.push(`${subagent ? 'subagent' : 'main'} ${turn}`);
      if (!subagent)
        return turn === 0
          ? { tool: 'invoke_agent', args: { agent_name: 'generalist', prompt: TASK } }
          : { text: 'Done.' };
      if (turn < 5) return { tool: 'run_shell_command', args: { command: 'cat missing.txt' } };
      return { tool: 'complete_task', args: { result: { response: 'It does not exist.' } } };
    };
    const api = await startFakeGeminiApi(script);
    try {
      const { result } = await runGeminiPrint(gemini, dir, api.url, home);
      expect(result.exitCode, String(result.stderr)).toBe(0);
    } finally {
      await api.close();
    }
    // Gemini CLI's hook input names no subagent (the session's id and chat): one row, one run.
    // Its stop does not end the subagent: it asks again, its repeat is refused, then it completes
    // and the main thread answers.
    expect(asked).toEqual(['main 0', ...[0, 1, 2, 3, 4, 5].map((n) => `subagent ${n}`), 'main 1']);
    expect(hookState(dir).sessions).toHaveLength(1);
    expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 4],
      ['loop_stop', 5],
    ]);
    expect(hookLog(dir)).toEqual([]);
    // status and the dashboard tell the same sentence
    const status = await expectStatusAndDashboard(dir, 4);
    expect(status.summary).toBe(
      'stopped by loopguard at call 4 (same error), 5 tool calls ran, 1 more call refused after the stop, 1 nudge',
    );
    // scan files the subagent's chat under the session's project, as its subagent
    const scan = await loopguard(dir, ['scan', '--json'], { HOME: home, GEMINI_CLI_HOME: home });
    expect(scan.code, scan.stderr).toBe(0);
    const report = JSON.parse(scan.stdout) as {
      sessions: Record<string, unknown>[];
      totals: { stoppedByLoopguard: number };
    };
    const sessions = report.sessions;
    const sessionId = String(hookState(dir).sessions[0]?.session_id);
    expect(sessions.find((s) => s.parentSessionId !== undefined)).toMatchObject({
      project: dir,
      parentSessionId: sessionId,
    });
    // and tells the session as the other doors do: its subagent's chat joined to the main one (geminiscan63)
    const main = sessions.find((s) => s.sessionId === sessionId);
    expect(main?.record).toBeDefined();
    expect(main?.recordDiffers).toBeUndefined();
    expect(report.totals.stoppedByLoopguard).toBe(1);
  }, 600_000);

  it("counts the subagent's dollars in its session's budget, written to its own chat: the session is stopped on spend, and every door says so (sess64)", async () => {
    const { dir } = tempRepo('');
    expect((await loopguard(dir, ['init', 'gemini', '--project'])).code).toBe(0);
    // a budget the main chat alone never reaches: its one reply before the subagent, $0.09
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: 0.3\n');
    const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
    const script = (turn: number, contents: unknown[]): GeminiTurn => {
      if (!JSON.stringify(contents[0] ?? '').includes(TASK))
        return turn === 0
          ? { tool: 'invoke_agent', args: { agent_name: 'generalist', prompt: TASK } }
          : { text: 'Done.' };
      if (turn < 5) return { tool: 'run_shell_command', args: { command: `ls -d dir${turn}` } };
      return { tool: 'complete_task', args: { result: { response: 'Listed.' } } };
    };
    // each reply 300,000 input tokens of gemini-2.5-flash: $0.09
    const api = await startFakeGeminiApi(script, {
      usage: { promptTokenCount: 300_000, candidatesTokenCount: 1, totalTokenCount: 300_001 },
    });
    try {
      const { result } = await runGeminiPrint(gemini, dir, api.url, home, { model: 'gemini-2.5-flash' });
      expect(result.exitCode, String(result.stderr)).toBe(0);
    } finally {
      await api.close();
    }
    expect(hookLog(dir)).toEqual([]);
    const io = await loopguard(dir, ['status', '--json']);
    const [session] = (JSON.parse(io.stdout) as { sessions: { sessions: Array<Record<string, unknown>> } })
      .sessions.sessions;
    // the main chat alone holds one reply ($0.09): the stop fell in the subagent's run, its replies counted
    expect(session).toMatchObject({ agent: 'gemini', verdict: 'stopped_on_spend' });
    // the stop does not end the subagent: its next calls are denied, each said
    expect(session?.summary).toMatch(
      /^stopped on spend at call \d \(budget reached\), \d tool calls? ran, \d+ more calls? refused after the stop, /,
    );
    expect((session?.spend as { costUsd: number } | undefined)?.costUsd).toBeGreaterThan(0.3);
    // each denied call is a call the model made (sess66): the main thread's later stop comes after
    // them all, as scan numbers it (before: at the call after the last that ran, `call 4`)
    const ran = Number(/(\d+) tool calls? ran/.exec(String(session?.summary))?.[1]);
    expect(session?.summary).toContain(`stopped again at call ${ran + Number(session?.deniedAfterStop)}`);
    const scan = await loopguard(dir, ['scan'], { HOME: home, GEMINI_CLI_HOME: home, NO_COLOR: '1' });
    expect(scan.code, scan.stderr).toBe(0);
    expect(scan.stdout).toContain("loopguard's spend guard stopped 1 session at its budget");
    // and scan tells it as status does: the calls refused after the stop are denied calls, no loop,
    // and the stop where the record holds it (gemscan65; before: a same_error loop "stopped" in the
    // denied calls, and "the transcript holds its spend stop at call 1", the main chat's number)
    expect(scan.stdout).not.toContain('looped where loopguard would have stopped it');
    expect(scan.stdout).not.toContain("Where loopguard's record");
    expect(scan.stdout).toContain(
      `loopguard's spend guard stopped 1 session at its budget (the transcript holds its stop), ${session?.deniedAfterStop} more calls refused after the stop.`,
    );
    const json = await loopguard(dir, ['scan', '--json'], { HOME: home, GEMINI_CLI_HOME: home });
    const report = JSON.parse(json.stdout) as ScanReport;
    const main = report.sessions.find((s) => s.sessionId === session?.sessionId);
    expect(main?.record?.summary).toBe(session?.summary);
    expect(main?.recordDiffers).toBeUndefined();
    expect(report.sessions.flatMap((s) => s.loops).filter((loop) => loop.stopStep !== null)).toEqual([]);
    expect(report.totals).toMatchObject({ deniedCalls: session?.deniedAfterStop, wastedToolCalls: 0 });
  }, 600_000);
});
