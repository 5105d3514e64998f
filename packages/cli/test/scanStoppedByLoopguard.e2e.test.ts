import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { ensureGeminiCli } from './agentClis.js';
import { filesUnder } from './agentTranscripts.js';
import { ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { startFakeGeminiApi } from './fakeModelApis.js';
import { runGeminiPrint } from './geminiCli.js';
import { bufferedIo } from './helpers.js';
import { hookState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';
import { expectOneStory, expectStatusAndDashboard } from './sessionStory.js';

// One story from every door (issue 35): a real Claude Code and Gemini CLI session (offline, scripted
// model APIs) with loopguard's hooks installed, looping until the hooks stop it. Then, in that
// project and without flags, `loopguard status`, the dashboard's `/sessions` and `loopguard scan`
// (on the transcript it left) must each show the same session stopped by loopguard at the tool call
// where the hook's own entry says it stopped (and nudged) — scan not as a loop that got a nudge and
// no stop.

type Shell = (turn: number) => { command: string; description: string } | undefined;
const FINAL = 'I stop here.';
/** The same failing command: the hook denies the fourth call before it runs (`PreToolUse`). */
const sameCommand: Shell = (turn) =>
  turn < 8 ? { command: 'cat missing.txt', description: `Read it (${turn + 1})` } : undefined;
const PATTERNS = ['loadConfig', 'load_config', 'LoadConfig', 'configLoader', 'readConfig', 'parseConfig'];
/** Reworded searches: the hook stops after the fourth call has run. */
const rewordedGreps: Shell = (turn) => {
  const pattern = PATTERNS[turn];
  return pattern === undefined
    ? undefined
    : { command: `grep -rn "${pattern}" . || echo "No matches found"`, description: `Search ${turn + 1}` };
};
const SESSIONS = { sameCommand, rewordedGreps };

async function claudeSession(
  script: Shell,
  mode: 'command' | 'mcp',
): Promise<{ dir: string; transcript: string }> {
  const claude = await ensureClaudeCode();
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-scan-stopped-'));
  const init = await loopguard(dir, ['init', 'claude', ...(mode === 'command' ? ['--command-hooks'] : [])], {
    HOME: home,
  });
  expect(init.code, init.stderr).toBe(0);
  const api = await startFakeAnthropicApi((turn) => {
    const call = script(turn);
    return call === undefined ? { text: FINAL } : { tool: 'Bash', input: call };
  });
  try {
    await runClaudePrint(claude, dir, api.url, home);
  } finally {
    await api.close();
  }
  const [transcript] = filesUnder(join(home, '.claude', 'projects'), '.jsonl');
  return { dir, transcript: transcript as string };
}

async function geminiSession(script: Shell): Promise<{ dir: string; transcript: string }> {
  const gemini = await ensureGeminiCli();
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-scan-stopped-'));
  const init = await loopguard(dir, ['init', 'gemini', '--project']);
  expect(init.code, init.stderr).toBe(0);
  const api = await startFakeGeminiApi((turn) => {
    const call = script(turn);
    return [
      call === undefined ? { text: FINAL } : { functionCall: { name: 'run_shell_command', args: call } },
    ];
  });
  try {
    await runGeminiPrint(gemini, dir, api.url, home, { model: 'gemini-scripted', timeout: 300_000 });
  } finally {
    await api.close();
  }
  const [transcript] = filesUnder(join(home, '.gemini', 'tmp'), '.jsonl');
  return { dir, transcript: transcript as string };
}

async function scan(file: string, json: boolean): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), 'loopguard-scan-stopped-cwd-'));
  const io = bufferedIo({ cwd, env: { HOME: cwd, NO_COLOR: '1' } });
  expect(await runCli(['scan', file, ...(json ? ['--json'] : [])], io), io.err()).toBe(EXIT_CODES.ok);
  return io.out();
}

/** The hook's own word on the session: the tool calls of its nudge and its stop (`toolCall` of the entries). */
function hookVerdicts(dir: string): { nudge: unknown; stop: unknown } {
  const { entries } = hookState(dir);
  const callOf = (topic: string) => entries.find((entry) => entry.topic === topic)?.metadata.toolCall;
  return { nudge: callOf('loop_nudge'), stop: callOf('loop_stop') };
}

async function expectStoppedByLoopguard(session: { dir: string; transcript: string }): Promise<void> {
  const hook = hookVerdicts(session.dir);
  expect(hook.stop, 'the hook stopped the session').toEqual(expect.any(Number));
  const report = JSON.parse(await scan(session.transcript, true)) as ScanReport;
  const loops = report.sessions[0]?.loops ?? [];
  const stopped = loops.find((loop) => loop.loopguard === 'stopped');
  expect(stopped, JSON.stringify(loops)).toMatchObject({
    stopCall: hook.stop,
    nudgeCall: hook.nudge,
    ended: 'stopped_by_loopguard',
    wastedToolCalls: 0,
  });
  expect(report.totals.stoppedByLoopguard).toBe(1);
  const out = await scan(session.transcript, false);
  expect(out).toContain(`call ${hook.stop} (by loopguard)`);
  expect(out).not.toContain('Nudged, never stopped');
  const status = await expectStatusAndDashboard(session.dir, hook.stop);
  // scan49: the scan's row is status's session, by id and project, with status's sentence and no
  // difference to explain
  expect(report.sessions[0]).toMatchObject({
    sessionId: status.sessionId,
    project: status.projectDir,
    record: { summary: status.summary, stop: { on: 'loop', call: hook.stop } },
  });
  expect(report.sessions[0]?.recordDiffers).toBeUndefined();
  expect(out).not.toContain("Where loopguard's record");
  // sessions53: every door, field by field
  await expectOneStory(session.dir, { transcripts: [session.transcript] });
}

describe.each(['command', 'mcp'] as const)(
  'scan after a real Claude Code session its hooks (%s) stopped',
  (mode) => {
    it.each(Object.keys(SESSIONS) as Array<keyof typeof SESSIONS>)(
      '%s: stopped by loopguard at the call the hook recorded',
      async (name) => {
        await expectStoppedByLoopguard(await claudeSession(SESSIONS[name], mode));
      },
      600_000,
    );
  },
);

describe('scan after a real Gemini CLI session its hooks stopped', () => {
  it.each(Object.keys(SESSIONS) as Array<keyof typeof SESSIONS>)(
    '%s: stopped by loopguard at the call the hook recorded',
    async (name) => {
      await expectStoppedByLoopguard(await geminiSession(SESSIONS[name]));
    },
    600_000,
  );
});
