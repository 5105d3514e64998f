import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTmuxPane } from './claudeTui.js';
import { type GeminiTurn, startFakeGeminiApi } from './fakeGeminiApi.js';
import { ensureGeminiCli, runGeminiPrint } from './geminiCli.js';
import { hookLog, hookState, sessionVerdicts, shipTrackedLoopguard, spendState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';
import { expectSessionOfTheRoot, ROOT_BUDGET } from './sessionStory.js';

// A real Gemini CLI, offline against a scripted Gemini API on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL,
// an API key from the environment), with loopguard's hooks installed by `loopguard init gemini`.
let gemini = '';
beforeAll(async () => {
  gemini = await ensureGeminiCli();
}, 900_000);

/** A run's extras: the project's loopguard.config.yaml, the usage every reply reports, the model. */
interface GeminiRun {
  config?: string;
  usage?: Record<string, number>;
  model?: string;
  /** Prepares the repository before `init` (a folder, a file). */
  before?: (dir: string) => void;
}

async function geminiWithHooks(script: (turn: number) => GeminiTurn, run: GeminiRun = {}) {
  const { dir } = tempRepo('');
  run.before?.(dir);
  if (run.config !== undefined) writeFileSync(join(dir, 'loopguard.config.yaml'), run.config);
  const init = await loopguard(dir, ['init', 'gemini', '--project']);
  expect(init.code, init.stderr).toBe(0);
  // the CLI runs entries that carry loopguard's marker (an extra key in the hook entry)
  expect(readFileSync(join(dir, '.gemini', 'settings.json'), 'utf8')).toContain('"loopguard": {');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
  const api = await startFakeGeminiApi(script, run.usage === undefined ? {} : { usage: run.usage });
  try {
    const { result, events } = await runGeminiPrint(
      gemini,
      dir,
      api.url,
      home,
      run.model === undefined ? {} : { model: run.model },
    );
    return { dir, result, events, received: api.conversations.map((c) => JSON.stringify(c)) };
  } finally {
    await api.close();
  }
}

const failing: GeminiTurn = { tool: 'run_shell_command', args: { command: 'cat missing.txt' } };

describe('loopguard hook with a real Gemini CLI (offline)', () => {
  it('nudges a model that runs the same failing command (in its next request), then denies the repeat and stops the agent', async () => {
    const { dir, result, events, received } = await geminiWithHooks(() => failing);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const nudged = received.findIndex((r) => r.includes('Loop detected'));
    expect(nudged).toBeGreaterThan(0);
    expect(received[nudged]).toMatch(/<hook_context>Loop detected \(\w+\): /);
    expect(received).toHaveLength(nudged + 1);
    const stopped = events.find((e) => e.type === 'tool_result' && e.status === 'error');
    expect(stopped?.output).toMatch(/^Agent execution stopped by hook: loopguard: Stopped \(\w+\): /);
    expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.agent])).toEqual([
      ['loop_nudge', 'gemini'],
      ['loop_stop', 'gemini'],
    ]);
    expect(hookLog(dir)).toEqual([]);
  }, 600_000);

  it.each<[string, GeminiTurn]>([
    ['a failing command', failing],
    ['a tool error', { tool: 'read_file', args: { file_path: 'missing.txt' } }],
  ])(
    'a stop after a failed call that ran (%s; something changed since the last failure) ends the session',
    async (_, failed) => {
      const shell = (command: string): GeminiTurn => ({ tool: 'run_shell_command', args: { command } });
      // call 1 writes, 2-4 fail alike (nudged), 5 writes, 6 fails again (the stop, after it ran:
      // the write since the last failure keeps it from being foreseen), and the model would go on.
      // The writes print a line already seen: a silent success of a new action would be progress.
      const script = (turn: number): GeminiTurn =>
        turn === 0
          ? shell('echo one > one.txt; echo written')
          : turn === 4
            ? shell('echo fix > fix.txt; echo written')
            : turn < 6
              ? failed
              : turn < 10
                ? shell(`echo more${turn} > more${turn}.txt`)
                : { text: 'Done.' };
      const { dir, result, received } = await geminiWithHooks(script);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
        ['loop_nudge', 4],
        ['loop_stop', 6],
      ]);
      // the session ends at the stop: no request after call 6, call 7 never ran
      expect(received).toHaveLength(6);
      expect(existsSync(join(dir, 'more6.txt'))).toBe(false);
      expect(hookLog(dir)).toEqual([]);
    },
    600_000,
  );

  it("judges a session's calls in its project when they run in a subfolder (dir_path; the event's cwd and GEMINI_PROJECT_DIR stay the project: codexcwd)", async () => {
    const inSub: GeminiTurn = {
      tool: 'run_shell_command',
      args: { command: 'cat missing.txt', dir_path: 'sub' },
    };
    const { dir, result, events } = await geminiWithHooks(() => inSub, {
      // a folder whose own configuration would switch loopguard off, were it taken as the project
      before: (dir) => {
        mkdirSync(join(dir, 'sub'));
        writeFileSync(join(dir, 'sub', 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
      },
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // the calls ran in the subfolder
    expect(events.find((e) => e.type === 'tool_result')?.output).toContain('missing.txt');
    expect(hookState(dir).entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
    expect(existsSync(join(dir, 'sub', '.loopguard'))).toBe(false);
  }, 600_000);

  it("never hands the model loopguard's notice of a refused .loopguard; the session runs unguarded (trust44)", async () => {
    const script = (turn: number): GeminiTurn => (turn < 2 ? failing : { text: 'Done.' });
    const { dir, result, events, received } = await geminiWithHooks(script, {
      before: (dir) =>
        symlinkSync(mkdtempSync(join(tmpdir(), 'loopguard-elsewhere-')), join(dir, '.loopguard')),
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // Gemini CLI 0.61 shows a hook's systemMessage in its interactive history; under -p it only logs it
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(2);
    expect(received.some((r) => r.includes('not guarding'))).toBe(false);
    expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(false);
  }, 600_000);

  it("init gemini --user: a session started in a subfolder is the repository's, under its budget, and ends when Gemini CLI exits (qa49)", async () => {
    const { dir } = tempRepo('');
    writeFileSync(join(dir, 'loopguard.config.yaml'), ROOT_BUDGET);
    const sub = join(dir, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
    const init = await loopguard(dir, ['init', 'gemini', '--user'], { HOME: home });
    expect(init.code, init.stderr).toBe(0);
    const script = (turn: number): GeminiTurn =>
      turn === 0
        ? failing
        : turn === 1
          ? { tool: 'run_shell_command', args: { command: 'echo one > one.txt' } }
          : { text: 'Done.' };
    const api = await startFakeGeminiApi(script);
    try {
      const { result, events } = await runGeminiPrint(gemini, sub, api.url, home);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(events.find((e) => e.type === 'result')).toMatchObject({ status: 'success' });
    } finally {
      await api.close();
    }
    await expectSessionOfTheRoot(dir, sub, 'gemini');
  }, 600_000);

  it("its interactive screen shows the user loopguard's notice of a tracked .loopguard once, and the model never reads it (trust44; qa49)", async () => {
    const { dir } = tempRepo('');
    shipTrackedLoopguard(dir);
    const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
    expect((await loopguard(dir, ['init', 'gemini', '--user'], { HOME: home })).code).toBe(0);
    const settings = join(home, '.gemini', 'settings.json');
    const user = JSON.parse(readFileSync(settings, 'utf8'));
    const auth = { security: { auth: { selectedType: 'gemini-api-key' } }, hooksConfig: { enabled: true } };
    writeFileSync(settings, JSON.stringify({ ...user, ...auth, privacy: { usageStatisticsEnabled: false } }));
    const script = (turn: number): GeminiTurn => (turn < 2 ? failing : { text: 'All done here.' });
    const api = await startFakeGeminiApi(script);
    const pane = await startTmuxPane([process.execPath, gemini, '--yolo'], {
      cwd: dir,
      env: {
        HOME: home,
        GEMINI_API_KEY: 'test',
        GOOGLE_GEMINI_BASE_URL: api.url,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        LOOPGUARD_HOOK: '',
      },
      width: 160,
      height: 60,
    });
    try {
      await pane.waitFor('the prompt', (shown) => (shown.includes('Type your message') ? true : undefined));
      await pane.submit('Fix the bug.');
      const shown = await pane.waitFor(
        'the reply',
        (p) => (p.includes('All done here.') ? p : undefined),
        120_000,
      );
      expect(shown).toContain('ℹ loopguard is not guarding this session: ');
      expect(shown.match(/not guarding/g)).toHaveLength(1);
    } finally {
      await pane.close();
      await api.close();
    }
    expect(api.conversations).toHaveLength(3);
    expect(JSON.stringify(api.conversations)).not.toContain('not guarding');
  }, 600_000);

  it('never nudges a model that makes progress', async () => {
    const script = (turn: number): GeminiTurn =>
      [
        { tool: 'run_shell_command', args: { command: 'echo one > one.txt' } },
        { tool: 'run_shell_command', args: { command: 'echo two > two.txt' } },
        { tool: 'run_shell_command', args: { command: 'cat one.txt two.txt' } },
      ][turn] ?? { text: 'Both files are written.' };
    const { dir, result, events, received } = await geminiWithHooks(script);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(events.find((e) => e.type === 'result')).toMatchObject({ status: 'success' });
    expect(received).toHaveLength(4);
    expect(received.some((r) => r.includes('Loop detected'))).toBe(false);
    expect(hookState(dir).sessions).toMatchObject([{ agent: 'gemini', steps: 7, nudges: 0, stops: 0 }]);
    // Gemini CLI said the session ended (SessionEnd): no door says it is running
    expect(sessionVerdicts(dir)).toEqual([['gemini', 'clean']]);
  }, 600_000);

  it('counts the replies of its chat (transcript_path): warns at 80 % of the budget, then stops at it', async () => {
    // every reply: 100,000 input tokens of which 4,000 cached, 12 output: 100,012 tokens
    const usage = {
      promptTokenCount: 100_000,
      cachedContentTokenCount: 4_000,
      candidatesTokenCount: 12,
      totalTokenCount: 100_012,
    };
    const progress = (turn: number): GeminiTurn =>
      turn < 8
        ? { tool: 'write_file', args: { file_path: `file${turn}.txt`, content: `${turn}\n` } }
        : { text: 'All files written.' };
    const { dir, result, events, received } = await geminiWithHooks(progress, {
      config:
        'spend:\n  session:\n    maxCostUsd: 0.1\n  prices:\n    gemini-2.5-flash: { input: 0.3, output: 2.5, cacheRead: 0.075 }\n',
      usage,
      model: 'gemini-2.5-flash',
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // a reply costs 96,000 × $0.30 + 4,000 × $0.075 + 12 × $2.50 per million: $0.02913; the warning
    // follows the third tool call ($0.08739, 87 %), the fourth reaches $0.11652
    const warned = received.findIndex((r) =>
      r.includes('you have spent $0.09 of $0.10 on this session (87 %)'),
    );
    expect(warned).toBe(3);
    expect(received).toHaveLength(4);
    expect(events.find((e) => e.type === 'result')).toMatchObject({ status: 'success' });
    const { entries } = spendState(dir);
    expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
    expect(entries[1]).toMatchObject({
      content: expect.stringContaining('this session reached its budget ($0.12 of $0.10)'),
      metadata: {
        scope: 'session',
        reason: 'cap',
        agent: 'gemini',
        spent: { replies: 4, inputTokens: 384_000, cacheReadTokens: 16_000, outputTokens: 48 },
      },
    });
    expect(hookLog(dir)).toEqual([]);
  }, 600_000);

  it("trust66: GEMINI_CLI_TRUST_WORKSPACE=false drops the project's hooks (folder trust off: it runs unguarded), so the model's nested one is refused", async () => {
    // the pinned Gemini CLI where the user switched folder trust off: nudged as ever, and with the
    // variable the loop runs on unguarded
    // four alike failing calls: loopguard nudges by then; Gemini CLI's own loop check stops at five
    const looping = (turn: number): GeminiTurn => (turn < 4 ? failing : { text: 'Done.' });
    for (const env of [{}, { GEMINI_CLI_TRUST_WORKSPACE: 'false' }]) {
      const { dir } = tempRepo('');
      expect((await loopguard(dir, ['init', 'gemini', '--project'])).code).toBe(0);
      const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
      mkdirSync(join(home, '.gemini'));
      const trustOff = { security: { folderTrust: { enabled: false } } };
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(trustOff));
      const api = await startFakeGeminiApi(looping);
      try {
        const { result, events } = await runGeminiPrint(gemini, dir, api.url, home, { env });
        expect(result.exitCode, String(result.stderr)).toBe(0);
        const guarded = Object.keys(env).length === 0;
        const nudged = api.conversations.some((c) => JSON.stringify(c).includes('Loop detected'));
        expect(nudged).toBe(guarded);
        expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(guarded);
        if (!guarded) expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(4);
      } finally {
        await api.close();
      }
    }
    // the model starting such a Gemini CLI from a guarded session is refused by the hooks that run
    const nested: GeminiTurn = {
      tool: 'run_shell_command',
      args: { command: 'GEMINI_CLI_TRUST_WORKSPACE=false gemini -p "Fix the bug."' },
    };
    const refused = await geminiWithHooks((turn) => (turn === 0 ? nested : { text: 'Done.' }));
    expect(refused.result.exitCode, String(refused.result.stderr)).toBe(0);
    const output = String(refused.events.find((e) => e.type === 'tool_result')?.output);
    expect(output).toContain('it starts Gemini CLI with the project untrusted');
  }, 900_000);
});
