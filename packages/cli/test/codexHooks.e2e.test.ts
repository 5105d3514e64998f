import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanReport } from '../src/scan/scanReport.js';
import { codexExecArgs, ensureCodex } from './agentClis.js';
import { startTmuxPane } from './claudeTui.js';
import { trustCodexHooks } from './codexHookTrust.js';
import { assistantText, execCommand, multiAgentCall, startFakeResponsesApi } from './fakeModelApis.js';
import { hookLog, hookState, sessionVerdicts, shipTrackedLoopguard, spendState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';
import {
  expectOneStory,
  expectSessionOfTheRoot,
  expectStatusAndDashboard,
  ROOT_BUDGET,
} from './sessionStory.js';

// A real Codex CLI (pinned), offline against a scripted Responses API on 127.0.0.1, with
// loopguard's hooks installed by `loopguard init codex --user` and trusted through Codex's own
// review API (what its /hooks screen writes).
let codex = '';
beforeAll(async () => {
  codex = await ensureCodex();
}, 900_000);

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const isLoopguard = (hook: { command?: string }) => hook.command?.includes(' hook codex') === true;

/**
 * {@link codexWithHooks} with subagents on and a budget in dollars, gpt-5's replies priced
 * (codex64: scan's dollars are the record's).
 */
const codexWithPricedSubagents = (script: Parameters<typeof startFakeResponsesApi>[0]) =>
  codexWithHooks(
    script,
    'spend:\n  session:\n    maxCostUsd: 10\n',
    false,
    ['-c', 'features.multi_agent=true'],
    async () => undefined,
    'gpt-5',
  );

/**
 * A scripted Codex that spawns a subagent on `subtask` and waits for it, then goes on as `after` says
 * (given how many of its calls ran since the wait); `subagent` answers the subagent's own thread
 * (given how many of its calls ran).
 */
function spawningSubagent(
  subtask: string,
  subagent: (ran: number) => ReturnType<typeof execCommand>[],
  after: (ran: number) => ReturnType<typeof execCommand>[],
): Parameters<typeof startFakeResponsesApi>[0] {
  return (_call, body) => {
    const input = body.input ?? [];
    const ran = input.filter((item) => item.type === 'function_call_output');
    // the subagent's thread starts with its task and never spawned an agent
    const text = JSON.stringify(input);
    if (text.includes(subtask) && !text.includes('spawn_agent')) return subagent(ran.length);
    if (ran.length === 0) return [multiAgentCall('spawn_agent', { message: subtask })];
    if (ran.length === 1) {
      const agent = JSON.parse(String(ran[0]?.output)).agent_id as string;
      return [multiAgentCall('wait_agent', { targets: [agent], timeout_ms: 60_000 })];
    }
    return after(ran.length - 2);
  };
}

/** `init codex --user` into a fresh CODEX_HOME, the user's trust step, then `codex exec` with `script`. */
async function codexWithHooks(
  script: Parameters<typeof startFakeResponsesApi>[0],
  config?: string,
  switchedOff = false,
  codexArgs: string[] = [],
  before: (dir: string) => Promise<string | undefined> = async () => undefined,
  model?: string,
) {
  const { dir } = tempRepo('');
  // a folder `before` names: Codex is started there, with `-C <dir>`
  const from = await before(dir);
  if (config !== undefined) writeFileSync(join(dir, 'loopguard.config.yaml'), config);
  const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
  const init = await loopguard(dir, ['init', 'codex', '--user'], env);
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain(
    "Codex skips loopguard's hooks until you trust them (4 of 4 not trusted yet)",
  );
  const listed = await trustCodexHooks(codex, env, dir, isLoopguard);
  expect(listed.filter(isLoopguard).map((h) => h.trustStatus)).toEqual([
    'untrusted',
    'untrusted',
    'untrusted',
    'untrusted',
  ]);
  // init's own reading of the trust Codex wrote: the hashes it computes are Codex's
  const again = await loopguard(dir, ['init', 'codex', '--user'], env);
  expect(again.stdout).toContain("Codex trusts loopguard's 4 hooks: they run now");
  const api = await startFakeResponsesApi(script);
  try {
    const [exec, ...rest] = codexExecArgs(api.url, 'Fix the bug.', model);
    const chdir = from === undefined ? [] : ['-C', dir];
    const result = await execa(codex, [exec as string, ...chdir, ...codexArgs, ...rest], {
      cwd: from ?? dir,
      reject: false,
      stdin: 'ignore',
      timeout: 300_000,
      env: { ...env, SCRIPTED_API_KEY: 'test', LOOPGUARD_HOOK: switchedOff ? 'off' : '' },
    });
    return {
      dir,
      env,
      result,
      bodies: api.bodies.map((b) => JSON.stringify(b)),
      outputs: api.bodies.map(lastOutput),
    };
  } finally {
    await api.close();
  }
}

/** The output of the last call a request hands the model (Codex sends the whole conversation each time). */
function lastOutput(body: unknown): string {
  const input = (body as { input?: Array<{ type?: string; output?: unknown }> }).input ?? [];
  const outputs = input.filter((item) => item.type === 'function_call_output');
  return String(outputs[outputs.length - 1]?.output ?? '');
}

/**
 * A first session (`init codex --user`, trusted) whose model runs each of `attacks`, then
 * `afterFirst(env, their outputs)`, then a second session of `cat missing.txt` failing seven
 * times. Returns every request of both, as text.
 */
async function refusedThenLooped(
  attacks: string[],
  afterFirst: (env: { HOME: string; CODEX_HOME: string }, outputs: string[]) => void,
  installed: (env: { HOME: string; CODEX_HOME: string }) => void = () => undefined,
): Promise<string[]> {
  const { dir } = tempRepo('');
  const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
  expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
  await trustCodexHooks(codex, env, dir, isLoopguard);
  installed(env);
  let second = false;
  const api = await startFakeResponsesApi((_call, body) => {
    const ran = (body.input ?? []).filter((item) => item.type === 'function_call_output').length;
    if (!second)
      return ran < attacks.length ? [execCommand(attacks[ran] as string)] : [assistantText('Done.')];
    return ran < 7 ? [execCommand('cat missing.txt')] : [assistantText('I give up.')];
  });
  try {
    const args = codexExecArgs(api.url, 'Fix the bug.');
    const run = () =>
      execa(codex, args, {
        cwd: dir,
        reject: false,
        stdin: 'ignore',
        timeout: 300_000,
        env: { ...env, SCRIPTED_API_KEY: 'test' },
      });
    const first = await run();
    expect(first.exitCode, String(first.stderr)).toBe(0);
    afterFirst(env, api.bodies.slice(1, attacks.length + 1).map(lastOutput));
    second = true;
    const next = await run();
    expect(next.exitCode, String(next.stderr)).toBe(0);
  } finally {
    await api.close();
  }
  return api.bodies.map((b) => JSON.stringify(b));
}

/**
 * A session of `cat missing.txt` failing twice in the project `dir` (`init codex --user`, trusted),
 * then `between(thread)`, then `codex exec resume <thread>` run in `resumeIn` failing five times
 * more. Returns the scripted API's requests.
 */
async function pausedAndResumed(
  dir: string,
  env: Record<string, string>,
  resumeIn: string,
  between: (thread: string) => void = () => undefined,
): Promise<Array<{ input?: Array<Record<string, unknown>> }>> {
  expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
  await trustCodexHooks(codex, env, dir, isLoopguard);
  let resumed = false;
  const api = await startFakeResponsesApi((_call, body) => {
    const ran = (body.input ?? []).filter((item) => item.type === 'function_call_output').length;
    if (ran < (resumed ? 7 : 2)) return [execCommand('cat missing.txt')];
    return [assistantText(resumed ? 'I give up.' : 'Let me think.')];
  });
  try {
    const [exec, ...rest] = codexExecArgs(api.url, 'Fix the bug.');
    const run = (cwd: string, args: string[]) =>
      execa(codex, [exec as string, ...args], {
        cwd,
        reject: false,
        stdin: 'ignore',
        timeout: 300_000,
        env: { ...env, SCRIPTED_API_KEY: 'test' },
      });
    const first = await run(dir, rest);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    const thread = JSON.parse(String(first.stdout).split('\n')[0] ?? '{}').thread_id as string;
    between(thread);
    resumed = true;
    const second = await run(resumeIn, [...rest.slice(0, -1), 'resume', thread, 'Go on.']);
    expect(second.exitCode, String(second.stderr)).toBe(0);
  } finally {
    await api.close();
  }
  return api.bodies as Array<{ input?: Array<Record<string, unknown>> }>;
}

describe('loopguard hook with a real Codex CLI 0.169.0 (offline)', () => {
  it('nudges by the third identical failing call, denies every repeat from the fourth on; --remove leaves nothing', async () => {
    const { dir, env, result, bodies, outputs } = await codexWithHooks((turn) =>
      turn < 7 ? [execCommand('cat missing.txt')] : [assistantText('I give up.')],
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // request n (0-based) answers call n: the nudge after the third call reaches request 3
    // a failure read from the rollout's exit code, as scan and run --agent-stream codex read it
    const nudged = bodies.findIndex((b) => b.includes('Loop detected ('));
    expect(nudged).toBe(3);
    expect(bodies[3]).toContain('Loop detected (same_error)');
    for (const output of outputs.slice(1, 4)) expect(output).toContain('Process exited with code 1');
    // calls 4 to 7 never ran: each was denied with the reason the model reads
    for (const output of outputs.slice(4, 8)) {
      expect(output).toMatch(/^Command blocked by PreToolUse hook: Stopped \(same_error\): /);
      expect(output).toContain('loopguard refused this call, and refuses every repeat of it.');
    }
    expect(existsSync(join(dir, 'missing.txt'))).toBe(false);
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([{ agent: 'codex', nudges: 1 }]);
    expect(entries[0]).toMatchObject({ topic: 'loop_nudge', metadata: { agent: 'codex' } });
    expect(entries.slice(1).map((e) => [e.topic, e.metadata.deniedBeforeRun])).toEqual(
      Array(4).fill(['loop_stop', true]),
    );
    expect(hookLog(dir)).toEqual([]);
    // one story from every door (issue 35): status and the dashboard in the project and scan of the
    // rollout, no flags
    const stopCall = entries[1]?.metadata.toolCall;
    expect(stopCall).toEqual(expect.any(Number));
    const status = await expectStatusAndDashboard(dir, stopCall);
    await expectOneStory(dir, { env });
    expect(status).toMatchObject({ agent: 'codex' });
    const scanned = await loopguard(dir, ['scan', '--json'], env);
    expect(scanned.code, scanned.stderr).toBe(0);
    const scannedSessions = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    const loops = scannedSessions.flatMap((session) => session.loops);
    expect(loops.find((loop) => loop.loopguard === 'stopped')).toMatchObject({ stopCall });
    // scan49: the scan's row is status's session, by id and project, with its sentence
    expect(scannedSessions).toMatchObject([
      { sessionId: status.sessionId, project: status.projectDir, record: { summary: status.summary } },
    ]);
    expect(scannedSessions[0]?.recordDiffers).toBeUndefined();

    const hooksFile = join(env.CODEX_HOME, 'hooks.json');
    expect(existsSync(hooksFile)).toBe(true);
    const removed = await loopguard(dir, ['init', 'codex', '--user', '--remove'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(hooksFile)).toBe(false);
    const listed = await trustCodexHooks(codex, env, dir, () => false);
    expect(listed).toEqual([]);
  }, 600_000);

  // sessions60: a stop found after its call ran (outcome_stagnation: edits that change nothing)
  // reaches the model as context, Codex going on; the model reads that every repeat is refused, and
  // the next repeat never runs
  it('a stop found after its call ran: the model reads that every repeat is refused, and the next one is', async () => {
    const script = [
      "sed -i 's/^x0$/names = sorted(names)/' loader.py",
      'python3 reproduce.py',
      "sed -i 's/^x1$/cache = {}/' loader.py",
      'python3 reproduce.py',
      "sed -i 's/^x2$/apps = reversed(apps)/' loader.py",
      'python3 reproduce.py',
      "sed -i 's/^x3$/return list(names)/' loader.py",
      'python3 reproduce.py',
      'python3 reproduce.py',
    ];
    const { dir, env, result, outputs, bodies } = await codexWithHooks(
      (turn) =>
        turn < script.length ? [execCommand(script[turn] as string)] : [assistantText('I give up.')],
      undefined,
      false,
      [],
      async (dir) => {
        writeFileSync(join(dir, 'loader.py'), 'x0\nx1\nx2\nx3\n');
        writeFileSync(join(dir, 'reproduce.py'), "raise ValueError('names differ')\n");
        return undefined;
      },
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // request 8 answers call 8, the stop handed to the model with its result
    expect(bodies[8]).toContain('Stopped (outcome_stagnation)');
    expect(bodies[8]).toContain('loopguard refuses every repeat of it.');
    expect(outputs[9]).toMatch(
      /^Command blocked by PreToolUse hook: Stopped \(outcome_stagnation\): call 9 was refused before it ran: it repeats call 8, /,
    );
    // every door: the stop at call 8, the repeat never ran
    await expectOneStory(dir, { env });
  }, 600_000);

  it('LOOPGUARD_HOOK=off codex: the same loop runs unjudged, and nothing is written', async () => {
    const { dir, result, outputs } = await codexWithHooks(
      (turn) => (turn < 5 ? [execCommand('cat missing.txt')] : [assistantText('I give up.')]),
      undefined,
      true,
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    for (const output of outputs.slice(1)) expect(output).toContain('Process exited with code 1');
    expect(existsSync(join(dir, '.loopguard'))).toBe(false);
  }, 600_000);

  it("the project's hook.enabled: false: the same loop runs unjudged, nothing is written, no budget applies", async () => {
    const { dir, result, outputs } = await codexWithHooks(
      (turn) => (turn < 5 ? [execCommand('cat missing.txt')] : [assistantText('I give up.')]),
      'hook:\n  enabled: false\nspend:\n  session:\n    maxTokens: 10\n',
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    for (const output of outputs.slice(1)) expect(output).toContain('Process exited with code 1');
    expect(existsSync(join(dir, '.loopguard'))).toBe(false);
  }, 600_000);

  it("never hands the model loopguard's notice of a refused .loopguard; the session runs unguarded (trust44)", async () => {
    const { dir, result, bodies } = await codexWithHooks(
      (turn) => (turn < 2 ? [execCommand('cat missing.txt')] : [assistantText('Done.')]),
      undefined,
      false,
      [],
      async (dir) => {
        symlinkSync(temp('loopguard-elsewhere-'), join(dir, '.loopguard'));
        return undefined;
      },
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // Codex 0.169 takes the hook's systemMessage (its PreToolUse output has one) and `exec` shows
    // no hook message; the model never reads it, and the session runs as it would unguarded
    expect(String(result.stdout)).toContain('"exit_code":1');
    expect(bodies.some((b) => b.includes('not guarding'))).toBe(false);
    expect(existsSync(join(dir, '.loopguard', 'state.db'))).toBe(false);
  }, 600_000);

  it('a user who trusted an earlier init (no SessionEnd): init adds it, Codex still trusts the other three, and init names the one to trust (qa49)', async () => {
    // the hooks.json an earlier init wrote is today's without SessionEnd; the user trusted its three
    const { dir } = tempRepo('');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    const hooksFile = join(env.CODEX_HOME, 'hooks.json');
    const { SessionEnd, ...earlier } = JSON.parse(readFileSync(hooksFile, 'utf8')).hooks;
    expect(SessionEnd).toBeDefined();
    writeFileSync(hooksFile, `${JSON.stringify({ hooks: earlier }, null, 2)}\n`);
    expect((await trustCodexHooks(codex, env, dir, isLoopguard)).map((h) => h.trustStatus)).toEqual(
      Array(3).fill('untrusted'),
    );
    const again = await loopguard(dir, ['init', 'codex', '--user'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      '(1 of 4 not trusted yet): start codex: it asks about them itself ("Hooks need review"): choose "Trust all and continue", or "Review hooks" to trust loopguard\'s SessionEnd hook alone',
    );
    // Codex's own review agrees: the three keep their trust, SessionEnd waits for the user's
    const listed = await trustCodexHooks(codex, env, dir, () => false);
    expect(listed.map((h) => [h.key.slice(h.key.indexOf(':') + 1), h.trustStatus])).toEqual([
      ['pre_tool_use:0:0', 'trusted'],
      ['post_tool_use:0:0', 'trusted'],
      ['session_end:0:0', 'untrusted'],
      ['stop:0:0', 'trusted'],
    ]);
  }, 600_000);

  it("a user who trusted polish47's SessionEnd hook (10 s, which Codex cut to 3 s with a warning at each start): init writes 3 s, Codex still trusts it and warns no more (qa49)", async () => {
    const { dir } = tempRepo('');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    const hooksFile = join(env.CODEX_HOME, 'hooks.json');
    const earlier = JSON.parse(readFileSync(hooksFile, 'utf8'));
    earlier.hooks.SessionEnd[0].hooks[0].timeout = 10;
    writeFileSync(hooksFile, `${JSON.stringify(earlier, null, 2)}\n`);
    const warnings: string[] = [];
    await trustCodexHooks(codex, env, dir, isLoopguard, (said) => warnings.push(...said));
    expect(warnings).toEqual([`clamping SessionEnd hook timeout to 3s in ${hooksFile}`]);
    const again = await loopguard(dir, ['init', 'codex', '--user'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Codex trusts loopguard's 4 hooks: they run now");
    expect(JSON.parse(readFileSync(hooksFile, 'utf8')).hooks.SessionEnd[0].hooks[0].timeout).toBe(3);
    // Codex's own listing: all four trusted, nothing to warn of
    const listed = await trustCodexHooks(codex, env, dir, () => false);
    expect(listed.map((h) => h.trustStatus)).toEqual(Array(4).fill('trusted'));
  }, 600_000);

  it("a session started in a subfolder is the repository's, under its budget, and ends when Codex exits (qa49)", async () => {
    const { dir } = tempRepo('');
    writeFileSync(join(dir, 'loopguard.config.yaml'), ROOT_BUDGET);
    const sub = join(dir, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    await trustCodexHooks(codex, env, dir, isLoopguard);
    const api = await startFakeResponsesApi((turn) =>
      turn === 0
        ? [execCommand('cat missing.txt')]
        : turn === 1
          ? [execCommand('echo one > one.txt')]
          : [assistantText('Done.')],
    );
    try {
      const result = await execa(codex, codexExecArgs(api.url, 'Fix the bug.'), {
        cwd: sub,
        reject: false,
        stdin: 'ignore',
        timeout: 300_000,
        env: { ...env, SCRIPTED_API_KEY: 'test', LOOPGUARD_HOOK: '' },
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(api.bodies).toHaveLength(3);
    } finally {
      await api.close();
    }
    await expectSessionOfTheRoot(dir, sub, 'codex');
  }, 600_000);

  it("its TUI shows the user loopguard's notice of a tracked .loopguard once, and the model never reads it (trust44; qa49)", async () => {
    const { dir } = tempRepo('');
    shipTrackedLoopguard(dir);
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    await trustCodexHooks(codex, env, dir, isLoopguard);
    // the project trusted as the user does at Codex's first start there (no prompt in the pane)
    const config = join(env.CODEX_HOME, 'config.toml');
    writeFileSync(
      config,
      `${readFileSync(config, 'utf8')}\n[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`,
    );
    const api = await startFakeResponsesApi((turn) =>
      turn < 2 ? [execCommand('cat missing.txt')] : [assistantText('All done here.')],
    );
    const provider = `{ name = "scripted", base_url = "${api.url}/v1", wire_api = "responses", env_key = "SCRIPTED_API_KEY" }`;
    const tui = [
      '--sandbox',
      'danger-full-access',
      '-c',
      'model_provider="scripted"',
      '-c',
      `model_providers.scripted=${provider}`,
    ];
    const pane = await startTmuxPane([codex, ...tui, '--model', 'gpt-scripted'], {
      cwd: dir,
      env: { ...env, SCRIPTED_API_KEY: 'test', LOOPGUARD_HOOK: '' },
      width: 160,
      height: 60,
    });
    try {
      await pane.waitFor('the prompt', (shown) => (shown.includes('Ask Codex') ? true : undefined));
      await pane.submit('Fix the bug.');
      const shown = await pane.waitFor(
        'the reply',
        (p) => (p.includes('All done here.') ? p : undefined),
        120_000,
      );
      expect(shown).toContain('↳ Hook · loopguard is not guarding this session: ');
      expect(shown.match(/not guarding/g)).toHaveLength(1);
    } finally {
      await pane.close();
      await api.close();
    }
    // no request of the session (the TUI makes one more than `exec`) carries it
    expect(api.bodies.some((b) => JSON.stringify(b).includes('not guarding'))).toBe(false);
  }, 600_000);

  it("the session's own switch covers a subagent it starts after: unjudged, and scan lists its loop with the session's switch (codex64)", async () => {
    const { dir } = tempRepo('');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    await trustCodexHooks(codex, env, dir, isLoopguard);
    const SUBTASK = 'SUBTASK: read missing.txt';
    let resumed = false;
    // one call, then (resumed, the session switched off) a subagent that runs the same failing
    // command six times while the main thread waits for it
    const api = await startFakeResponsesApi((_call, body) => {
      const input = body.input ?? [];
      const outputs = input.filter((item) => item.type === 'function_call_output');
      const text = JSON.stringify(input);
      if (text.includes(SUBTASK) && !text.includes('spawn_agent'))
        return outputs.length < 6 ? [execCommand('cat missing.txt')] : [assistantText('I give up.')];
      if (!resumed)
        return outputs.length === 0 ? [execCommand('echo one > one.txt')] : [assistantText('Paused.')];
      if (outputs.length === 1) return [multiAgentCall('spawn_agent', { message: SUBTASK })];
      if (outputs.length === 2) {
        const agent = JSON.parse(String(outputs[1]?.output)).agent_id as string;
        return [multiAgentCall('wait_agent', { targets: [agent], timeout_ms: 60_000 })];
      }
      return [assistantText('Done.')];
    });
    try {
      const [exec, ...rest] = codexExecArgs(api.url, 'Fix the bug.');
      const run = (args: string[]) =>
        execa(codex, [exec as string, '-c', 'features.multi_agent=true', ...args], {
          cwd: dir,
          reject: false,
          stdin: 'ignore',
          timeout: 300_000,
          env: { ...env, SCRIPTED_API_KEY: 'test' },
        });
      const first = await run(rest);
      expect(first.exitCode, String(first.stderr)).toBe(0);
      const thread = JSON.parse(String(first.stdout).split('\n')[0] ?? '{}').thread_id as string;
      const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
      database.db.prepare('UPDATE hook_sessions SET enabled = 0 WHERE session_id = ?').run(thread);
      database.close();
      resumed = true;
      const second = await run([...rest.slice(0, -1), 'resume', thread, 'Go on.']);
      expect(second.exitCode, String(second.stderr)).toBe(0);
    } finally {
      await api.close();
    }
    const bodies = api.bodies.map((b) => JSON.stringify(b));
    expect(bodies.some((b) => b.includes('Loop detected') || b.includes('Command blocked'))).toBe(false);
    expect(hookState(dir).entries).toEqual([]);
    expect(hookState(dir).sessions).toHaveLength(1);
    // scan: the subagent's rollout loops where the session's switch left it alone, said as such
    const scanned = await loopguard(dir, ['scan', '--json', '--no-cache'], env);
    expect(scanned.code, scanned.stderr).toBe(0);
    const sessions = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    const subagent = sessions.find((s) => s.parentSessionId !== undefined);
    expect(subagent?.loops.length).toBeGreaterThan(0);
    expect(subagent?.unguarded).toBe(`off for this session (switched off), in ${dir}`);
    const text = await loopguard(dir, ['scan', '--no-cache'], env);
    expect(text.stdout).not.toContain('looped where loopguard would have stopped');
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      '1 session looped while loopguard was off for it (see "Not guarded" below)',
    );
  }, 600_000);

  it("the session's own switch (enabled = 0 on its row): the loop runs unjudged after it, and every door says the session was switched off (codex58)", async () => {
    // two failures, the user switches the session's row off, the session resumed fails five times more
    const { dir } = tempRepo('');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    const requests = await pausedAndResumed(dir, env, dir, (thread) => {
      const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
      database.db.prepare('UPDATE hook_sessions SET enabled = 0 WHERE session_id = ?').run(thread);
      database.close();
    });
    const bodies = requests.map((b) => JSON.stringify(b));
    expect(bodies.some((b) => b.includes('Loop detected') || b.includes('Command blocked'))).toBe(false);
    expect(hookState(dir).entries).toEqual([]);
    // status, status --session, the dashboard and scan's record: one sentence, naming the switch
    const stories = await expectOneStory(dir, { env });
    expect([...stories.values()]).toEqual([
      'off for this session (switched off), no loop found, 2 tool calls ran',
    ]);
    // scan lists it among the sessions loopguard did not guard, in status's words
    const scanned = await loopguard(dir, ['scan'], env);
    expect(scanned.code, scanned.stderr).toBe(0);
    expect(scanned.stdout.replace(/\s+/g, ' ')).toContain(
      `Not guarded by loopguard (what status says there): 1 session: off for this session (switched off), in ${dir}.`,
    );
  }, 600_000);

  it("a new user's first session, as docs/hooks.md says: init codex in the project, Codex's own prompts trust the folder and the hooks, and its TUI shows each refusal with loopguard's words (codex58)", async () => {
    const { dir } = tempRepo('');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    const init = await loopguard(dir, ['init', 'codex'], env);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('Codex does not trust this project yet');
    // what init tells the user to expect is what Codex shows below, word for word (polish61)
    for (const words of ['Hooks need review', 'Trust all and continue', 'Review hooks'])
      expect(init.stdout).toContain(`"${words}"`);
    const api = await startFakeResponsesApi((_call, body) => {
      const ran = (body.input ?? []).filter((item) => item.type === 'function_call_output').length;
      return ran < 5 ? [execCommand('cat missing.txt')] : [assistantText('All done here.')];
    });
    const provider = `{ name = "scripted", base_url = "${api.url}/v1", wire_api = "responses", env_key = "SCRIPTED_API_KEY" }`;
    const tui = ['--sandbox', 'danger-full-access', '-c', 'model_provider="scripted"'];
    const pane = await startTmuxPane(
      [codex, ...tui, '-c', `model_providers.scripted=${provider}`, '--model', 'gpt-scripted'],
      { cwd: dir, env: { ...env, SCRIPTED_API_KEY: 'test', LOOPGUARD_HOOK: '' }, width: 160, height: 80 },
    );
    let shown = '';
    try {
      const asked = (words: string) => (p: string) => (p.includes(words) ? true : undefined);
      await pane.waitFor('the folder trust prompt', asked('Trust this folder?'));
      // a key pressed while Codex still draws its first screen can be lost: press again while it stays
      for (let tries = 1; ; tries++) {
        await pane.press('Enter');
        const left = (p: string) => (p.includes('Trust this folder?') ? undefined : true);
        const gone = await pane.waitFor('the folder trusted', left, 3_000).catch((error: unknown) => {
          if (tries === 10) throw error;
        });
        if (gone === true) break;
      }
      // Codex asks about the 4 new hooks itself, as `init` told the user it would
      await pane.waitFor('the hooks review', asked('Hooks need review'));
      await pane.waitFor('its count', asked('4 hooks are new or changed.'));
      await pane.waitFor('the choice to read each', asked('Review hooks'));
      await pane.press('Down');
      await pane.waitFor('the second choice', asked('› 2. Trust all and continue'));
      await pane.press('Enter');
      await pane.waitFor('the prompt', asked('Ask Codex'));
      await pane.submit('Fix the bug.');
      shown = await pane.waitFor('the reply', (p) => (p.includes('All done here.') ? p : undefined), 120_000);
    } finally {
      await pane.close();
      await api.close();
    }
    // the user reads each refusal in the TUI with loopguard's reason; never the nudge (a developer
    // message to the model only)
    expect(shown.match(/• Blocked by hook/g)).toHaveLength(2);
    expect(shown).toContain('└ Stopped (same_error): call 4 was refused before it ran: it repeats call 3');
    expect(shown).toContain('loopguard refused this call, and refuses every repeat of it');
    expect(shown).not.toContain('Loop detected');
    // the model read the nudge and then why each call was refused, in words
    // (the TUI asks more than `exec`: the request after call 3 is found by its outputs)
    const nudged = api.bodies.find((b) => JSON.stringify(b).includes('Loop detected (same_error)'));
    expect(
      (nudged as { input: Array<{ type?: string }> }).input.filter((i) => i.type === 'function_call_output'),
    ).toHaveLength(3);
    expect(api.bodies.map(lastOutput)).toContainEqual(
      expect.stringMatching(
        /^Command blocked by PreToolUse hook: Stopped \(same_error\): call 4 was refused before it ran/,
      ),
    );
    const again = await loopguard(dir, ['init', 'codex'], env);
    expect(again.stdout).toContain("Codex trusts loopguard's 4 hooks: they run now");
    // the two refusals the user saw: the stop, then one more (qa60)
    expect([...(await expectOneStory(dir, { env })).values()]).toEqual([
      'stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 more call refused after the stop, 1 nudge',
    ]);
  }, 600_000);

  it('never judges a session that makes progress', async () => {
    const commands = ['echo one > one.txt', 'echo two > two.txt', 'ls', 'cat one.txt two.txt'];
    const { dir, result, bodies } = await codexWithHooks((turn) => {
      const command = commands[turn];
      return command === undefined ? [assistantText('Both files are written.')] : [execCommand(command)];
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(bodies).toHaveLength(5);
    expect(bodies.some((b) => b.includes('Loop detected') || b.includes('Command blocked'))).toBe(false);
    expect(readFileSync(join(dir, 'two.txt'), 'utf8')).toBe('two\n');
    expect(hookState(dir).sessions).toMatchObject([{ agent: 'codex', nudges: 0, stops: 0 }]);
    expect(hookState(dir).entries).toEqual([]);
    expect(hookLog(dir)).toEqual([]);
    // Codex said the session ended (SessionEnd): no door says it is running
    expect(sessionVerdicts(dir)).toEqual([['codex', 'clean']]);
  }, 600_000);

  it("judges a subagent's calls as its own run: the subagent is stopped, the main thread that makes progress is not (qa39)", async () => {
    const SUBTASK = 'SUBTASK: read missing.txt';
    const { dir, env, result, bodies } = await codexWithPricedSubagents(
      spawningSubagent(
        SUBTASK,
        (ran) => (ran < 8 ? [execCommand('cat missing.txt')] : [assistantText('I give up.')]),
        (ran) => {
          const command = ['echo one > one.txt', 'cat one.txt', 'ls'][ran];
          return command === undefined ? [assistantText('Done.')] : [execCommand(command)];
        },
      ),
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(bodies.some((b) => b.includes('Command blocked by PreToolUse hook: Stopped (same_error)'))).toBe(
      true,
    );
    const { sessions, entries } = hookState(dir);
    const main = sessions.find((s) => s.parent_session_id === null);
    const subagent = sessions.find((s) => s.parent_session_id !== null);
    // the main thread: spawn_agent, wait_agent and three commands, never judged
    expect(main).toMatchObject({ tool_calls: 5, nudges: 0, stops: 0 });
    expect(subagent).toMatchObject({
      parent_session_id: main?.session_id,
      agent_type: 'default',
      tool_calls: 3,
    });
    expect(new Set(entries.map((e) => e.metadata.sessionId))).toEqual(new Set([subagent?.session_id]));
    expect(entries.slice(0, 2).map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 4],
    ]);
    // both threads' replies in the session's ledger, each once; the subagent's also in its own row.
    // Its last two too (codex64): Codex writes a reply's count after its call's output, and no event
    // of the subagent's thread comes after its last call; the main thread's next events read them.
    const { ledgers } = spendState(dir);
    const ledger = ledgers.find((l) => l.scope === `session:codex:${main?.session_id}`);
    const own = ledgers.find((l) => l.scope === `subagent:codex:${main?.session_id}:${subagent?.session_id}`);
    const subagentReplies = bodies.filter((b) => b.includes(SUBTASK) && !b.includes('spawn_agent')).length;
    expect(own?.ledger.totals).toMatchObject({ replies: subagentReplies });
    expect(ledger?.ledger.totals).toMatchObject({ replies: bodies.length });
    expect(ledger?.ledger.totals.costUsd).toBeGreaterThan(0);
    expect(hookLog(dir)).toEqual([]);
    // scan: the subagent's rollout is its run, under its session, as status names it (codex47)
    const scanned = await loopguard(dir, ['scan', '--json'], env);
    expect(scanned.code, scanned.stderr).toBe(0);
    const runs = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    expect(runs.find((run) => run.sessionId === subagent?.session_id)).toMatchObject({
      parentSessionId: main?.session_id,
      toolCalls: 3,
      loops: [expect.objectContaining({ nudgeCall: 3, stopCall: 4, loopguard: 'stopped' })],
    });
    expect(runs.find((run) => run.sessionId === main?.session_id)).toMatchObject({ toolCalls: 5, loops: [] });
    expect(runs.find((run) => run.sessionId === main?.session_id)?.parentSessionId).toBeUndefined();
    // scan49: each run is the one status lists, with its sentence, and nothing to explain
    for (const run of runs) {
      expect(run.record?.summary, run.sessionId).toEqual(expect.any(String));
      expect(run.recordDiffers, run.sessionId).toBeUndefined();
    }
    // scan's table names the subagent's session, as status and the dashboard do (codex64)
    const table = (await loopguard(dir, ['scan', '--no-cache'], env)).stdout.split('\n');
    expect(table.find((row) => row.startsWith('project '))).toMatch(/\| evidence +\| subagent of$/);
    expect(table.find((row) => row.includes(String(subagent?.session_id)))).toMatch(
      new RegExp(`\\| ${main?.session_id}$`),
    );
    // sessions53: every door, field by field, the subagent's run and the main thread's
    expect((await expectOneStory(dir, { env })).size).toBe(2);
  }, 600_000);

  it("counts a subagent that makes no tool call against its session, known from spawn_agent's result (sess66)", async () => {
    const SUBTASK = 'SUBTASK: say hello';
    const { dir, result, bodies } = await codexWithPricedSubagents(
      // the subagent answers with no tool call: no event of its own thread
      spawningSubagent(
        SUBTASK,
        () => [assistantText('Hello.')],
        (ran) => (ran === 0 ? [execCommand('echo one > one.txt')] : [assistantText('Done.')]),
      ),
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const subagentReplies = bodies.filter((b) => b.includes(SUBTASK) && !b.includes('spawn_agent')).length;
    expect(subagentReplies).toBeGreaterThan(0);
    const { sessions } = hookState(dir);
    const main = sessions.find((s) => s.parent_session_id === null);
    // the subagent made no call: no row of its own, its replies in its session's ledger all the same
    expect(sessions).toHaveLength(1);
    const { ledgers } = spendState(dir);
    const ledger = ledgers.find((l) => l.scope === `session:codex:${main?.session_id}`);
    const own = ledgers.find((l) => l.scope.startsWith(`subagent:codex:${main?.session_id}:`));
    // before: the main thread's replies alone
    expect(own?.ledger.totals).toMatchObject({ replies: subagentReplies });
    expect(ledger?.ledger.totals).toMatchObject({ replies: bodies.length });
    expect(hookLog(dir)).toEqual([]);
  }, 600_000);

  it("a budget its subagent reaches: the subagent's run is stopped on spend at its call, the session at its own, as each rollout says (codex64)", async () => {
    const SUBTASK = 'SUBTASK: write the files';
    const { dir, env, result, outputs } = await codexWithHooks(
      spawningSubagent(
        SUBTASK,
        (ran) => (ran < 6 ? [execCommand(`echo ${ran} > s${ran}.txt`)] : [assistantText('Done.')]),
        (ran) => {
          const command = ['echo a > a.txt', 'echo b > b.txt', 'echo c > c.txt'][ran];
          return command === undefined ? [assistantText('Done.')] : [execCommand(command)];
        },
      ),
      // 15 tokens a reply: the subagent's own five replies reach the session's budget before its
      // sixth call (its fifth, where the main thread's first reply is counted by then: the threads
      // run side by side, so the call is not asserted)
      'spend:\n  session:\n    maxTokens: 75\n',
      false,
      ['-c', 'features.multi_agent=true'],
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(outputs.some((o) => o.includes('this session reached its budget'))).toBe(true);
    const { sessions } = hookState(dir);
    const main = sessions.find((s) => s.parent_session_id === null);
    const subagent = sessions.find((s) => s.parent_session_id !== null);
    // every door, field by field, and scan's rollouts with no difference to explain
    const stories = await expectOneStory(dir, { env });
    expect(stories.get(String(subagent?.session_id))).toMatch(
      /^stopped on spend at call \d \(budget reached\), \d tool calls ran/,
    );
    expect(stories.get(String(main?.session_id))).toMatch(
      // its subagent, a run of its own, named at its end as the status line names it (doors67)
      /^stopped on spend at call \d+ \(budget reached\), \d+ tool calls ran, .*tokens of 75; 1 subagent stopped on spend$/,
    );
  }, 600_000);

  it('records every call of a session in the project it started in, wherever a call runs (codexcwd)', async () => {
    // Codex's event names the call's `workdir` as its `cwd`; the same failing command run in a
    // subfolder, another repository with loopguard's own hooks and state, and a folder outside
    // any project is one session's loop, judged in the project where the session started
    const other = tempRepo('').dir;
    const outside = temp('loopguard-codex-outside-');
    const places = (dir: string) => [undefined, join(dir, 'sub'), other, outside];
    let project = '';
    const { dir, result, bodies, outputs } = await codexWithHooks(
      (turn) =>
        turn < 8
          ? [execCommand('cat missing.txt', places(project)[turn % 4])]
          : [assistantText('I give up.')],
      undefined,
      false,
      [],
      async (dir) => {
        project = dir;
        mkdirSync(join(dir, 'sub'));
        const init = await loopguard(other, ['init', 'codex'], { HOME: temp('loopguard-codex-other-') });
        expect(init.code, init.stderr).toBe(0);
        // the other repository's own configuration: loopguard switched off there
        writeFileSync(join(other, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
        // Codex itself started elsewhere: the session's folder is `-C`'s
        return outside;
      },
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // the calls ran where they were asked to (the event's cwd is each call's folder)
    expect(outputs[2]).toContain('Process exited with code 1');
    for (const elsewhere of [join(dir, 'sub'), other, outside])
      expect(existsSync(join(elsewhere, '.loopguard', 'state.db')), elsewhere).toBe(false);
    // one session, its calls counted together: nudged at the third, denied from the fourth on
    expect(bodies[3]).toContain('Loop detected (same_error)');
    for (const output of outputs.slice(4, 9))
      expect(output).toMatch(/^Command blocked by PreToolUse hook: Stopped \(same_error\): /);
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([{ agent: 'codex', project_dir: dir, tool_calls: 3, nudges: 1 }]);
    expect(entries.map((e) => e.topic)).toEqual(['loop_nudge', ...Array(5).fill('loop_stop')]);
    expect(hookLog(dir)).toEqual([]);
  }, 600_000);

  it('a session resumed from another folder stays one session, in the project it started in (codex47)', async () => {
    // Codex runs a resumed session's hooks in the folder `codex exec resume` is run from: the
    // session's first two failures in the project, its next ones after a resume from another repository
    const { dir } = tempRepo('');
    const elsewhere = tempRepo('').dir;
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    const requests = await pausedAndResumed(dir, env, elsewhere);
    // calls 1 and 2 in the project, 3 after the resume: nudged at 3, calls 4 to 7 denied
    const outputs = requests.map(lastOutput);
    expect(requests.map((b) => JSON.stringify(b)).findIndex((b) => b.includes('Loop detected ('))).toBe(4);
    for (const output of outputs.slice(5))
      expect(output).toMatch(/^Command blocked by PreToolUse hook: Stopped \(same_error\): /);
    expect(existsSync(join(elsewhere, '.loopguard'))).toBe(false);
    const { sessions, entries } = hookState(dir);
    expect(sessions).toMatchObject([
      { agent: 'codex', session_id: expect.any(String), tool_calls: 3, nudges: 1 },
    ]);
    expect(entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 4],
      ['loop_stop', 5],
      ['loop_stop', 6],
      ['loop_stop', 7],
    ]);
    expect(hookLog(dir)).toEqual([]);
    // every door: status and the dashboard in the project, scan of the rollout (which names the project)
    await expectStatusAndDashboard(dir, 4);
    const scanned = await loopguard(dir, ['scan', '--json'], env);
    expect(scanned.code, scanned.stderr).toBe(0);
    const [session] = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    expect(session).toMatchObject({ project: dir, toolCalls: 3 });
    expect(session?.loops).toEqual([expect.objectContaining({ nudgeCall: 3, stopCall: 4 })]);
  }, 600_000);

  it('refused calls between repeats: the hook and scan give the same verdicts at the same calls (codex47)', async () => {
    // two failures, the model's own call against loopguard three times (refused, never run), the
    // failure again: the refusals are no attempt and no loop, in the hook and in scan alike
    const plan = ['cat missing.txt', 'cat missing.txt', ...Array<string>(3).fill('rm -rf .loopguard')];
    const { dir, env, result, outputs } = await codexWithHooks((turn) =>
      turn < 8 ? [execCommand(plan[turn] ?? 'cat missing.txt')] : [assistantText('I give up.')],
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    for (const output of outputs.slice(3, 6))
      expect(output).toMatch(
        /^Command blocked by PreToolUse hook: loopguard refused this call: its own state/,
      );
    const { entries } = hookState(dir);
    expect(entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 6],
      ['loop_stop', 7],
      ['loop_stop', 8],
    ]);
    const scanned = await loopguard(dir, ['scan', '--json'], env);
    expect(scanned.code, scanned.stderr).toBe(0);
    const [session] = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    expect(session).toMatchObject({ toolCalls: 3, deniedCalls: 5 });
    expect(session?.loops).toEqual([
      expect.objectContaining({ kind: 'same_error', nudgeCall: 6, stopCall: 7, loopguard: 'stopped' }),
    ]);
    expect(await expectStatusAndDashboard(dir, 7)).toMatchObject({ agent: 'codex' });
  }, 600_000);

  it('counts each reply of its rollout once: warns at 80 % of the budget, then denies every further call', async () => {
    // every scripted reply reports 15 tokens; Codex writes a reply's count to the rollout after its
    // call's output, so the hook of call n has counted replies 1 to n − 1
    const { dir, result, bodies, outputs } = await codexWithHooks(
      (turn) => (turn < 10 ? [execCommand(`echo ${turn} > file${turn}.txt`)] : [assistantText('Done.')]),
      'spend:\n  session:\n    maxTokens: 100\n',
    );
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // request n + 1 answers call n (0-based); the hook of call n has counted n replies of 15 tokens:
    // call 6 is warned (90 of 100), calls 7 to 9 are denied (105 and more) and never run
    const warned = bodies.findIndex((b) =>
      b.includes('you have used 90 of 100 tokens on this session (90 %)'),
    );
    expect(warned).toBe(7);
    const stopped = outputs.findIndex((o) => o.startsWith('Command blocked by PreToolUse hook:'));
    expect(stopped).toBe(8);
    for (const output of outputs.slice(8, 11)) {
      expect(output).toMatch(
        /^Command blocked by PreToolUse hook: loopguard: this session reached its budget/,
      );
      // no reply ends a Codex turn: the model reads that every further call is refused (codex58)
      expect(output).toContain(
        'loopguard refuses every further tool call of this session: end your turn with what you have. Command: ',
      );
    }
    expect(existsSync(join(dir, 'file6.txt'))).toBe(true);
    expect(existsSync(join(dir, 'file7.txt'))).toBe(false);
    const { entries, ledgers } = spendState(dir);
    expect(entries.map((e) => [e.topic, e.metadata.spent.replies, e.metadata.hookEvent])).toEqual([
      ['spend_warning', 6, 'PreToolUse'],
      ['spend_stop', 7, 'PreToolUse'],
      ['spend_stop', 8, 'PreToolUse'],
      ['spend_stop', 9, 'PreToolUse'],
    ]);
    // each reply of the rollout counted once: as many as the API gave
    const session = ledgers.find((l) => l.scope.startsWith('session:codex:'));
    expect(session?.ledger.totals).toMatchObject({ replies: bodies.length, tokens: 15 * bodies.length });
    expect(hookLog(dir)).toEqual([]);
  }, 600_000);

  it("trust62: the model's call that switches Codex's hooks feature off is refused; the next session's loop is still nudged", async () => {
    // `codex features disable hooks` writes this; the next `codex` started (a `loopguard run`
    // iteration, a resumed session) would run no hook of loopguard's
    const off = `printf '[features]\\nhooks = false\\n' >> "$CODEX_HOME/config.toml"`;
    const bodies = await refusedThenLooped([off], (env, outputs) => {
      expect(outputs[0]).toContain('loopguard refused this call');
      const config = join(env.CODEX_HOME, 'config.toml');
      expect(existsSync(config) ? readFileSync(config, 'utf8') : '').not.toContain('hooks = false');
    });
    expect(bodies.some((b) => b.includes('Loop detected ('))).toBe(true);
  }, 600_000);

  it("trust64: the model's calls that remove loopguard's hooks or start a Codex without them are refused; the next session's loop is still nudged", async () => {
    let installed = '';
    // the hooks file taken away, then a nested Codex with its hooks feature off
    const attacks = ['rm "$CODEX_HOME/hooks.json"', 'codex exec --disable hooks "Fix the bug."'];
    const bodies = await refusedThenLooped(
      attacks,
      (env, outputs) => {
        expect(outputs[0]).toContain("it would take loopguard's hooks out");
        expect(outputs[1]).toContain('it starts an agent with its hooks off');
        expect(readFileSync(join(env.CODEX_HOME, 'hooks.json'), 'utf8')).toBe(installed);
      },
      (env) => {
        installed = readFileSync(join(env.CODEX_HOME, 'hooks.json'), 'utf8');
      },
    );
    expect(bodies.some((b) => b.includes('Loop detected ('))).toBe(true);
  }, 600_000);

  it("trust65: Codex's `--ignore-user-config` runs none of loopguard's hooks (its trust is in the config it skips), so the model's nested one is refused", async () => {
    // the pinned Codex with the flag: a call loopguard's hook refuses (its hooks file emptied) runs
    const attack = `echo '{}' > "$CODEX_HOME/hooks.json"`;
    const { env, outputs } = await codexWithHooks(
      (_call, body) => {
        const ran = (body.input ?? []).filter((item) => item.type === 'function_call_output');
        return ran.length === 0 ? [execCommand(attack)] : [assistantText('Done.')];
      },
      undefined,
      false,
      ['--ignore-user-config'],
    );
    expect(outputs[1]).not.toContain('loopguard refused');
    expect(readFileSync(join(env.CODEX_HOME, 'hooks.json'), 'utf8').trim()).toBe('{}');
    // the model starting such a Codex, or one with another home, is refused by the hooks that run
    const attacks = [
      'codex exec --ignore-user-config "Fix the bug."',
      'CODEX_HOME=/tmp/x codex exec "Fix the bug."',
    ];
    const bodies = await refusedThenLooped(attacks, (_env, refused) => {
      expect(refused[0]).toContain('it starts an agent with its hooks off');
      expect(refused[1]).toContain('it starts an agent with another home');
    });
    expect(bodies.some((b) => b.includes('Loop detected ('))).toBe(true);
  }, 900_000);

  it("trust66: a nested Codex with the user's CODEX_HOME unset or the environment cleared is refused where the default home holds none of loopguard's hooks", async () => {
    // the user keeps loopguard's hooks in a CODEX_HOME of their own; HOME's `.codex` holds none
    const attacks = ['env -u CODEX_HOME codex exec "Fix the bug."', 'env -i codex exec "Fix the bug."'];
    const bodies = await refusedThenLooped(attacks, (_env, refused) => {
      for (const output of refused) expect(output).toContain('it starts an agent with another home');
    });
    expect(bodies.some((b) => b.includes('Loop detected ('))).toBe(true);
  }, 900_000);

  it('stdin63: a shell kept open for typed commands is refused; what would be typed there never runs', async () => {
    // Codex 0.169.0 sends `exec_command`'s PreToolUse as `{ command: "sh" }` (no `tty`) and no hook
    // event at all for `write_stdin`: what is typed into a kept shell goes around every hook
    const typed = (outputs: string[]) => {
      const session = /session ID (\d+)/.exec(outputs.join('\n'))?.[1] ?? '1';
      const chars = 'rm -rf .loopguard/x; echo done\n';
      const args = { session_id: Number(session), chars, yield_time_ms: 500 };
      return { type: 'function_call', name: 'write_stdin', arguments: JSON.stringify(args) };
    };
    const { dir, outputs } = await codexWithHooks(
      (_call, body) => {
        const ran = (body.input ?? []).filter((item) => item.type === 'function_call_output');
        if (ran.length === 0) {
          const args = { cmd: 'sh', tty: true, yield_time_ms: 500 };
          return [{ type: 'function_call', name: 'exec_command', arguments: JSON.stringify(args) }];
        }
        if (ran.length === 1) return [typed(ran.map((item) => String(item.output)))];
        return [assistantText('Done.')];
      },
      undefined,
      false,
      [],
      async (repo) => {
        mkdirSync(join(repo, '.loopguard', 'x'), { recursive: true });
        return undefined;
      },
    );
    expect(existsSync(join(dir, '.loopguard', 'x'))).toBe(true);
    expect(outputs[1]).toContain('loopguard refused this call: a shell or interpreter started without');
  }, 600_000);

  it("codex71: git commit's editor (core.editor, which the model can set) is refused; what vim's :! would run never runs", async () => {
    // `git commit` with no message opens the repository's `core.editor` in the call's terminal;
    // what the model types there (`:!…` in vim) runs through `write_stdin`, which no hook sees
    const session = (guarded: boolean) =>
      codexWithHooks(
        (_call, body) => {
          const ran = (body.input ?? []).filter((item) => item.type === 'function_call_output');
          if (ran.length === 0) {
            const args = { cmd: 'git commit', tty: true, yield_time_ms: 1000 };
            return [{ type: 'function_call', name: 'exec_command', arguments: JSON.stringify(args) }];
          }
          if (ran.length === 1) {
            const id = /session ID (\d+)/.exec(String(ran[0]?.output))?.[1] ?? '1';
            const args = { session_id: Number(id), chars: ':!touch typed\n:cq\n', yield_time_ms: 1000 };
            return [{ type: 'function_call', name: 'write_stdin', arguments: JSON.stringify(args) }];
          }
          return [assistantText('Done.')];
        },
        undefined,
        !guarded,
        [],
        async (repo) => {
          writeFileSync(join(repo, 'fix.txt'), 'fixed\n');
          await execa('git', ['add', 'fix.txt'], { cwd: repo });
          await execa('git', ['config', 'core.editor', 'vim -u NONE'], { cwd: repo });
          return undefined;
        },
      );
    // switched off, the editor opens and what is typed into it runs: the hole the rule closes
    const off = await session(false);
    expect(existsSync(join(off.dir, 'typed'))).toBe(true);
    const on = await session(true);
    expect(on.outputs[1]).toContain('loopguard refused this call: a shell or interpreter started without');
    expect(existsSync(join(on.dir, 'typed'))).toBe(false);
  }, 900_000);
});
