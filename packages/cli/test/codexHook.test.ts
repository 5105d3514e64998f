import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpendLedger } from '@loopguard/core/spend';
import { describe, expect, it } from 'vitest';
import { codexHook } from '../src/hook/codexHook.js';
import { readRolloutSteps } from '../src/hook/codexRollout.js';
import type { HookEvent, HookReply } from '../src/hook/hookEvent.js';
import { answerHookEvent } from '../src/hook/runHook.js';
import { usageOfLines } from '../src/hook/transcriptUsage.js';
import { codexHookHash, codexTrust } from '../src/install/codexTrust.js';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { bufferedIo } from './helpers.js';
import {
  codexCallOutput,
  codexEvent,
  codexFunctionCall,
  codexRolloutLine,
  hookLog,
  hookState,
  spendState,
} from './hookHelpers.js';
import { loopguard } from './runHelpers.js';
import { expectOneStory } from './sessionStory.js';

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

const line = codexRolloutLine;
const functionCall = codexFunctionCall;
const callOutput = codexCallOutput;

/**
 * The rollout line of a call Codex refused because a `PreToolUse` hook denied it (`reply`, the
 * hook's JSON answer), as 0.169.0 writes it: the reason, then `. Command: <command>`.
 */
const blockedOutput = (id: string, reply: string, command: string) =>
  line('response_item', {
    type: 'function_call_output',
    call_id: id,
    output: `Command blocked by PreToolUse hook: ${JSON.parse(reply).hookSpecificOutput.permissionDecisionReason}. Command: ${command}`,
  });

/** A Codex event of one `cat missing.txt` call, as 0.169.0 sends it, as its hook reads it. */
const event = (...args: Parameters<typeof codexEvent>) => JSON.stringify(codexEvent(...args));

const NO_SUCH_FILE = 'cat: missing.txt: No such file or directory\n';

/**
 * A Codex session in a new project (its rollout begun, `loopguard.config.yaml` written when given)
 * and `answer`, which hands the hook one shell call's event as Codex runs its hooks: in the project.
 */
function codexSession(config?: string) {
  const dir = temp('loopguard-codex-hook-');
  if (config !== undefined) writeFileSync(join(dir, 'loopguard.config.yaml'), config);
  const rollout = join(dir, 'rollout.jsonl');
  writeFileSync(rollout, line('session_meta', { id: 's1', cwd: dir }));
  const answer = (name: string, id: string, cmd: string, extra?: Record<string, unknown>) =>
    answerHookEvent('codex', event(dir, rollout, name, id, { tool_input: { command: cmd }, ...extra }), {
      env: {},
      cwd: dir,
    });
  return { dir, rollout, answer };
}

/**
 * A Codex session started in `src` of a repository guarded at its root (its config), after one
 * `ls` call run there; `call(folder, id)` runs the next `ls` call with Codex's hooks run in `folder`.
 */
async function sessionBelowItsRepository() {
  const repo = temp('loopguard-codex-repo-');
  mkdirSync(join(repo, '.git'));
  writeFileSync(join(repo, 'loopguard.config.yaml'), 'hook:\n  enabled: true\n');
  const src = join(repo, 'src');
  mkdirSync(src);
  const rollout = join(repo, 'rollout.jsonl');
  writeFileSync(rollout, line('session_meta', { id: 's1', cwd: src }));
  const call = (folder: string, id: string) => {
    appendFileSync(rollout, functionCall(id, 'ls'));
    return answerHookEvent(
      'codex',
      event(folder, rollout, 'PostToolUse', id, { tool_input: { command: 'ls' }, tool_response: 'a\n' }),
      { env: {}, cwd: folder },
    );
  };
  await call(src, 'call_1');
  appendFileSync(rollout, callOutput('call_1', 0, 'a\n'));
  return { repo, src, call };
}

/**
 * A project with a session's budget of `maxCostUsd` and a Codex session's two rollouts, as Codex
 * 0.169.0 names them (one day folder, the subagent's by its id), and `reply`, which writes one
 * reply's count (110 tokens) as Codex writes it after the reply's call (its time, the thread's total).
 */
function codexThreads(maxCostUsd: number) {
  const dir = temp('loopguard-codex-hook-');
  writeFileSync(join(dir, 'loopguard.config.yaml'), `spend:\n  session:\n    maxCostUsd: ${maxCostUsd}\n`);
  const day = join(dir, 'sessions', '2026', '11', '29');
  mkdirSync(day, { recursive: true });
  const main = join(day, 'rollout-2026-11-29T08-00-00-s1.jsonl');
  const sub = join(day, 'rollout-2026-11-29T08-00-01-sub-1.jsonl');
  const model = line('turn_context', { model: 'gpt-5' });
  writeFileSync(main, line('session_meta', { id: 's1', cwd: dir }) + model);
  writeFileSync(sub, line('session_meta', { id: 'sub-1', cwd: dir, parent_thread_id: 's1' }) + model);
  let total = 0;
  const reply = (rollout: string, second: number) => {
    total += 110;
    const last = { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, total_tokens: 110 };
    const info = { total_token_usage: { ...last, total_tokens: total }, last_token_usage: last };
    appendFileSync(
      rollout,
      line('event_msg', { type: 'token_count', info }, `2026-11-29T08:00:${second}.000Z`),
    );
  };
  return { dir, main, sub, reply };
}

describe('loopguard hook codex', () => {
  it('reads the failure from the rollout (the event has none): same_error, as scan says; every repeat denied', async () => {
    const dir = temp('loopguard-codex-hook-');
    const rollout = join(dir, 'rollout.jsonl');
    writeFileSync(rollout, line('session_meta', { id: 's1', cwd: dir }));
    const answer = (name: string, id: string, extra?: Record<string, unknown>) =>
      answerHookEvent('codex', event(dir, rollout, name, id, extra), { env: {}, cwd: dir });
    const replies: Record<string, string> = {};
    for (let n = 1; n <= 6; n++) {
      const id = `call_${n}`;
      // Codex writes the call before its hooks, and its output only after PostToolUse returns
      appendFileSync(rollout, functionCall(id, 'cat missing.txt'));
      const before = await answer('PreToolUse', id);
      replies[`pre${n}`] = before;
      if (before !== '') {
        appendFileSync(rollout, blockedOutput(id, before, 'cat missing.txt'));
        continue;
      }
      replies[`post${n}`] = await answer('PostToolUse', id, { tool_response: NO_SUCH_FILE });
      appendFileSync(rollout, callOutput(id, 1, NO_SUCH_FILE));
    }
    expect([replies.pre1, replies.post1, replies.pre2, replies.post2, replies.pre3]).toEqual([
      '',
      '',
      '',
      '',
      '',
    ]);
    expect(JSON.parse(replies.post3 ?? '')).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PostToolUse',
        additionalContext: expect.stringMatching(/^Loop detected \(same_error\): /),
      },
    });
    for (const n of [4, 5, 6]) {
      const reply = JSON.parse(replies[`pre${n}`] ?? '');
      // Codex rejects continue/stopReason on PreToolUse and then runs the call: never sent
      expect(Object.keys(reply)).toEqual(['hookSpecificOutput']);
      expect(reply.hookSpecificOutput).toMatchObject({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
      });
      expect(reply.hookSpecificOutput.permissionDecisionReason).toMatch(/^Stopped \(same_error\): /);
    }
    expect(
      hookState(dir).entries.map((e) => [e.topic, e.metadata.agent, e.metadata.deniedBeforeRun ?? false]),
    ).toEqual([
      ['loop_nudge', 'codex', false],
      ['loop_stop', 'codex', true],
      ['loop_stop', 'codex', true],
      ['loop_stop', 'codex', true],
    ]);
    // each denial falls at the call the model made (the calls scan counts), the stop at the first
    expect(hookState(dir).entries.map((e) => e.metadata.toolCall)).toEqual([3, 4, 5, 6]);
    expect(hookLog(dir)).toEqual([]);
    // qa60: Codex goes on after the stop, and every door says how often it was denied since (scan
    // counted "2 calls (2 denied)" after the stop while status, the dashboard and the status line
    // said only "stopped … at call 4")
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    expect(await runCli(['status', '--json'], io)).toBe(0);
    expect(JSON.parse(io.out()).sessions.sessions[0].summary).toBe(
      'stopped by loopguard at call 4 (same error), 3 tool calls ran, 2 more calls refused after the stop, 1 nudge',
    );
  });

  it('trust50: a provider that lets the model reuse one call id for every call: the answers of ids of their own', async () => {
    const run = async (idOf: (n: number) => string) => {
      const dir = temp('loopguard-codex-hook-');
      const rollout = join(dir, 'rollout.jsonl');
      writeFileSync(rollout, line('session_meta', { id: 's1', cwd: dir }));
      const answer = (name: string, id: string, extra?: Record<string, unknown>) =>
        answerHookEvent('codex', event(dir, rollout, name, id, extra), { env: {}, cwd: dir });
      const ran: number[] = [];
      const denied: number[] = [];
      for (let n = 1; n <= 14; n++) {
        const id = idOf(n);
        // then another command under the same id: its calls are not taken for the denied one's
        const command = n <= 8 ? 'cat missing.txt' : n <= 10 ? 'ls' : 'cat other.txt';
        const output = command === 'ls' ? 'a\n' : NO_SUCH_FILE.replace('missing.txt', command.slice(4));
        appendFileSync(rollout, functionCall(id, command));
        const before = await answer('PreToolUse', id, { tool_input: { command } });
        if (before !== '') {
          denied.push(n);
          appendFileSync(rollout, blockedOutput(id, before, command));
          continue;
        }
        ran.push(n);
        await answer('PostToolUse', id, { tool_input: { command }, tool_response: output });
        appendFileSync(rollout, callOutput(id, command === 'ls' ? 0 : 1, output));
      }
      return { ran, denied, toolCalls: hookState(dir).entries.map((e) => e.metadata.toolCall) };
    };
    const own = await run((n) => `call_${n}`);
    expect(own.denied.slice(0, 5)).toEqual([4, 5, 6, 7, 8]);
    expect(await run(() => 'call_same')).toEqual(own);
  });

  it("records a session's calls in the folder its hooks run in, whatever folder the event names (codexcwd)", async () => {
    // Codex runs its hooks in the session's folder; the event's `cwd` is the call's `workdir`
    const dir = temp('loopguard-codex-hook-');
    const elsewhere = [join(dir, 'sub'), temp('loopguard-codex-other-'), temp('loopguard-codex-outside-')];
    mkdirSync(join(dir, 'sub'));
    const rollout = join(dir, 'rollout.jsonl');
    writeFileSync(rollout, line('session_meta', { id: 's1', cwd: dir }));
    const answer = (n: number, name: string, id: string, extra?: Record<string, unknown>) =>
      answerHookEvent('codex', event(elsewhere[n % 3] as string, rollout, name, id, extra), {
        env: {},
        cwd: dir,
      });
    const replies: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const id = `call_${n}`;
      appendFileSync(rollout, functionCall(id, 'cat missing.txt'));
      replies.push(await answer(n, 'PreToolUse', id));
      if (n === 4) break;
      replies.push(await answer(n, 'PostToolUse', id, { tool_response: NO_SUCH_FILE }));
      appendFileSync(rollout, callOutput(id, 1, NO_SUCH_FILE));
    }
    expect(replies[5]).toMatch(/"additionalContext":"Loop detected \(same_error\): /);
    expect(replies[6]).toMatch(/"permissionDecision":"deny"/);
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's1', project_dir: dir, tool_calls: 3 }]);
    for (const folder of elsewhere) expect(existsSync(join(folder, '.loopguard'))).toBe(false);
  });

  it('a session resumed in another folder stays in the project its rollout names only when that project holds it (codex47)', async () => {
    const { dir, rollout, answer } = codexSession();
    appendFileSync(rollout, functionCall('call_1', 'ls'));
    await answer('PostToolUse', 'call_1', 'ls', { tool_response: 'a\n' });
    appendFileSync(rollout, callOutput('call_1', 0, 'a\n'));
    // resumed elsewhere: Codex runs the hooks there; the call is the session's, in its project
    const resumedIn = temp('loopguard-codex-resumed-');
    const fromThere = (session: string, file: string, id: string) =>
      answerHookEvent(
        'codex',
        event(resumedIn, file, 'PostToolUse', id, { session_id: session, tool_input: { command: 'pwd' } }),
        { env: {}, cwd: resumedIn },
      );
    appendFileSync(rollout, functionCall('call_2', 'pwd'));
    await fromThere('s1', rollout, 'call_2');
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's1', tool_calls: 2 }]);
    expect(existsSync(join(resumedIn, '.loopguard'))).toBe(false);
    // another session whose rollout's first line names that project: not held there, so not moved
    const forged = join(resumedIn, 'forged.jsonl');
    writeFileSync(forged, line('session_meta', { id: 's2', cwd: dir }));
    appendFileSync(forged, functionCall('call_9', 'pwd'));
    await fromThere('s2', forged, 'call_9');
    expect(hookState(dir).sessions.map((s) => s.session_id)).toEqual(['s1']);
    expect(hookState(resumedIn).sessions).toMatchObject([{ session_id: 's2', project_dir: resumedIn }]);
  });

  it('a session started below its repository and resumed in another folder stays in the repository (codex47 with qa47)', async () => {
    const { repo, src, call } = await sessionBelowItsRepository();
    const resumedIn = temp('loopguard-codex-resumed-');
    await call(resumedIn, 'call_2');
    expect(hookState(repo).sessions).toMatchObject([{ session_id: 's1', tool_calls: 2 }]);
    expect(existsSync(join(src, '.loopguard'))).toBe(false);
    expect(existsSync(join(resumedIn, '.loopguard'))).toBe(false);
  });

  it('trust45: a `.git` made since in the folder the rollout names does not split a resumed session', async () => {
    const { repo, src, call } = await sessionBelowItsRepository();
    // the model ran `git init` in src; the session is then resumed elsewhere
    mkdirSync(join(src, '.git'));
    const resumedIn = temp('loopguard-codex-resumed-');
    await call(resumedIn, 'call_2');
    expect(hookState(repo).sessions).toMatchObject([{ session_id: 's1', tool_calls: 2 }]);
    expect(existsSync(join(src, '.loopguard'))).toBe(false);
    expect(existsSync(join(resumedIn, '.loopguard'))).toBe(false);
  });

  it('trust46: nor does a second session in that folder, which makes its database: the session stays in the project that held it, resumed or not', async () => {
    const { repo, src, call } = await sessionBelowItsRepository();
    mkdirSync(join(src, '.git'));
    // a second session (the model's own `codex exec`) starts in src: src's project is its own
    const other = join(repo, 'other-rollout.jsonl');
    writeFileSync(other, line('session_meta', { id: 's2', cwd: src }) + functionCall('o_1', 'ls'));
    await answerHookEvent(
      'codex',
      event(src, other, 'PostToolUse', 'o_1', {
        session_id: 's2',
        tool_input: { command: 'ls' },
        tool_response: 'a\n',
      }),
      { env: {}, cwd: src },
    );
    expect(hookState(src).sessions).toMatchObject([{ session_id: 's2' }]);
    await call(src, 'call_2');
    await call(temp('loopguard-codex-resumed-'), 'call_3');
    expect(hookState(repo).sessions).toMatchObject([{ session_id: 's1', tool_calls: 3 }]);
    expect(hookState(src).sessions.map((s) => s.session_id)).toEqual(['s2']);
  });

  it('a repeat after a change is not denied before it runs (its result cannot be foreseen); its result stops', async () => {
    const { dir, answer, rollout } = codexSession();
    const FAILING = 'Traceback (most recent call last):\nValueError: names differ\n';
    const replies: string[] = [];
    const run = async (id: string, cmd: string, code: number, output: string) => {
      appendFileSync(rollout, functionCall(id, cmd));
      replies.push(`${id} pre ${await answer('PreToolUse', id, cmd)}`);
      replies.push(`${id} post ${await answer('PostToolUse', id, cmd, { tool_response: output })}`);
      appendFileSync(rollout, callOutput(id, code, output));
    };
    const changes = ['names = sorted(names)', 'cache = {}', 'apps = reversed(apps)', 'return list(names)'];
    for (const [n, change] of changes.entries()) {
      await run(`edit_${n}`, `sed -i 's/^x${n}$/${change}/' src/loader.py`, 0, '');
      await run(`run_${n}`, 'python3 reproduce.py', 1, FAILING);
    }
    const spoken = replies.filter((r) => !r.endsWith(' '));
    expect(spoken.map((r) => r.split(' {')[0])).toEqual(['run_2 post', 'run_3 post']);
    expect(spoken[1]).toMatch(/Stopped \(outcome_stagnation\)/);
    // the stop is recorded when the rollout shows the call's output (at the next call); none was denied
    expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.deniedBeforeRun ?? false])).toEqual([
      ['loop_nudge', false],
    ]);
  });

  // sessions60: Codex cannot end the turn, so a stop found after its call ran reaches the model as
  // context, and the model read no word that the next repeat will not run
  it('a stop found after its call ran tells the model that loopguard refuses every repeat, and it does', async () => {
    const { dir, answer, rollout } = codexSession();
    const FAILING = 'Traceback (most recent call last):\nValueError: names differ\n';
    const changes = ['names = sorted(names)', 'cache = {}', 'apps = reversed(apps)', 'return list(names)'];
    const replies: string[] = [];
    const run = async (id: string, cmd: string, code: number, output: string) => {
      appendFileSync(rollout, functionCall(id, cmd));
      const pre = await answer('PreToolUse', id, cmd);
      if (pre !== '') {
        appendFileSync(rollout, blockedOutput(id, pre, cmd));
        return pre;
      }
      replies.push(await answer('PostToolUse', id, cmd, { tool_response: output }));
      appendFileSync(rollout, callOutput(id, code, output));
      return '';
    };
    for (const [n, change] of changes.entries()) {
      await run(`edit_${n}`, `sed -i 's/^x${n}$/${change}/' src/loader.py`, 0, '');
      await run(`run_${n}`, 'python3 reproduce.py', 1, FAILING);
    }
    const stop = JSON.parse(replies.at(-1) ?? '').hookSpecificOutput.additionalContext as string;
    expect(stop).toMatch(/^Stopped \(outcome_stagnation\)/);
    expect(stop).toMatch(/\nloopguard refuses every repeat of it\.$/);
    // every repeat, each at the call the model made; after a change the repeat runs and is judged
    for (const n of [4, 5]) {
      const denied = JSON.parse(await run(`run_${n}`, 'python3 reproduce.py', 1, FAILING));
      expect(denied.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(denied.hookSpecificOutput.permissionDecisionReason).toMatch(
        new RegExp(
          `^Stopped \\(outcome_stagnation\\): call ${n + 5} was refused before it ran: it repeats call 8, `,
        ),
      );
    }
    await run('edit_4', "sed -i 's/^x4$/names = []/' src/loader.py", 0, '');
    expect(await run('run_6', 'python3 reproduce.py', 1, FAILING)).toBe('');
    expect(
      hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall, e.metadata.deniedBeforeRun ?? false]),
    ).toEqual([
      ['loop_nudge', 6, false],
      ['loop_stop', 8, false],
      ['loop_stop', 9, true],
      ['loop_stop', 10, true],
    ]);
  });

  it('a verdict after denied calls falls at the call the model made, as scan numbers it', async () => {
    const { dir, answer, rollout } = codexSession();
    const failing = (cmd: string) => `cat: ${cmd.slice(4)}: No such file or directory\n`;
    // calls 1-3 run and fail, 4-5 are denied (the loop's stop), then 6-9 fail on another file
    const calls = [
      'cat a.txt',
      'cat a.txt',
      'cat a.txt',
      'cat a.txt',
      'cat a.txt',
      'cat b.txt',
      'cat b.txt',
      'cat b.txt',
      'cat b.txt',
    ];
    for (const [i, cmd] of calls.entries()) {
      const id = `call_${i + 1}`;
      appendFileSync(rollout, functionCall(id, cmd));
      const before = await answer('PreToolUse', id, cmd);
      if (before !== '') {
        appendFileSync(rollout, blockedOutput(id, before, cmd));
        continue;
      }
      await answer('PostToolUse', id, cmd, { tool_response: failing(cmd) });
      appendFileSync(rollout, callOutput(id, 1, failing(cmd)));
    }
    await answer('Stop', 'end', 'x');
    const entries = hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall]);
    expect(entries.slice(0, 3)).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 4],
      ['loop_stop', 5],
    ]);
    // b.txt's calls are 6 to 9 (scan's numbers), not 4 and 5 again: the two denied calls count
    expect(entries.slice(3).map(([, call]) => call)).toEqual([6, 7, 8, 9]);
  });

  it('a spend stop that keeps denying records each denial at the call the model made', async () => {
    const { dir, answer, rollout } = codexSession('spend:\n  session:\n    maxTokens: 100\n');
    appendFileSync(rollout, functionCall('call_1', 'ls'));
    expect(await answer('PreToolUse', 'call_1', 'ls')).toBe('');
    expect(await answer('PostToolUse', 'call_1', 'ls', { tool_response: 'a\n' })).toBe('');
    appendFileSync(rollout, callOutput('call_1', 0, 'a\n'));
    const total = { input_tokens: 500, cached_input_tokens: 0, output_tokens: 10, total_tokens: 510 };
    const usage = { info: { total_token_usage: total, last_token_usage: total } };
    appendFileSync(rollout, line('event_msg', { type: 'token_count', ...usage }, '2026-11-29T08:00:01.000Z'));
    // three different commands, each denied before it runs: the budget is spent
    for (const [n, cmd] of [
      [2, 'pwd'],
      [3, 'date'],
      [4, 'whoami'],
    ] as const) {
      appendFileSync(rollout, functionCall(`call_${n}`, cmd));
      const reply = JSON.parse(await answer('PreToolUse', `call_${n}`, cmd));
      expect(reply.hookSpecificOutput.permissionDecision).toBe('deny');
      // no reply ends a Codex turn: the model is told in words that every further call is refused
      // and what to do (codex58); scan still reads the first line as the spend guard's stop
      expect(reply.hookSpecificOutput.permissionDecisionReason).toBe(
        'loopguard: this session reached its budget (510 of 100 tokens); loopguard stopped it.\nloopguard refuses every further tool call of this session: end your turn with what you have',
      );
      appendFileSync(rollout, blockedOutput(`call_${n}`, JSON.stringify(reply), cmd));
    }
    const stops = spendState(dir).entries.filter((e) => e.topic === 'spend_stop');
    expect(stops.map((e) => e.metadata.toolCall)).toEqual([2, 3, 4]);
    expect(hookLog(dir)).toEqual([]);
    // polish62: every door says the later denials, as a loop stop's do (qa60 said them for a loop stop only)
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    expect(await runCli(['status', '--json'], io)).toBe(0);
    expect(JSON.parse(io.out()).sessions.sessions[0].summary).toBe(
      'stopped on spend at call 2 (budget reached), 1 tool call ran, 2 more calls refused after the stop, 510 tokens of 100',
    );
    // and every door the same: status's table and --session, the dashboard, scan's record of the rollout
    await expectOneStory(dir, { transcripts: [rollout] });
  });

  it('qa51: a new session denied its first call by the spent day is listed as stopped on spend', async () => {
    const { dir, answer, rollout } = codexSession('spend:\n  projectDay:\n    maxTokens: 100\n');
    appendFileSync(rollout, functionCall('call_1', 'ls'));
    expect(await answer('PreToolUse', 'call_1', 'ls')).toBe('');
    const total = { input_tokens: 500, cached_input_tokens: 0, output_tokens: 10, total_tokens: 510 };
    const usage = { info: { total_token_usage: total, last_token_usage: total } };
    appendFileSync(rollout, line('event_msg', { type: 'token_count', ...usage }, '2026-11-29T08:00:01.000Z'));
    appendFileSync(rollout, callOutput('call_1', 0, 'a\n'));
    await answer('PostToolUse', 'call_1', 'ls', { tool_response: 'a\n' });
    const second = join(dir, 'rollout-2.jsonl');
    writeFileSync(second, line('session_meta', { id: 's2', cwd: dir }) + functionCall('call_9', 'pwd'));
    const reply = await answerHookEvent(
      'codex',
      event(dir, second, 'PreToolUse', 'call_9', { session_id: 's2', tool_input: { command: 'pwd' } }),
      { env: {}, cwd: dir },
    );
    expect(JSON.parse(reply).hookSpecificOutput.permissionDecision).toBe('deny');
    const status = await loopguard(dir, ['status', '--session', 's2']);
    expect(status.code).toBe(11);
    expect(status.stdout).toContain('stopped on spend at call 1 (budget reached), 0 tool calls ran');
  });

  it('a refused call is numbered among the calls: the spend stop after it falls at the call scan says', async () => {
    const { dir, answer, rollout } = codexSession('spend:\n  session:\n    maxTokens: 100\n');
    const blocked = (id: string, reply: string, cmd: string) =>
      appendFileSync(rollout, blockedOutput(id, reply, cmd));
    appendFileSync(rollout, functionCall('call_1', 'ls'));
    expect(await answer('PreToolUse', 'call_1', 'ls')).toBe('');
    expect(await answer('PostToolUse', 'call_1', 'ls', { tool_response: 'a\n' })).toBe('');
    appendFileSync(rollout, callOutput('call_1', 0, 'a\n'));
    // call 2: the model's own call against loopguard, refused before it runs
    appendFileSync(rollout, functionCall('call_2', 'rm .loopguard/state.db'));
    blocked(
      'call_2',
      await answer('PreToolUse', 'call_2', 'rm .loopguard/state.db'),
      'rm .loopguard/state.db',
    );
    const total = { input_tokens: 500, cached_input_tokens: 0, output_tokens: 10, total_tokens: 510 };
    const usage = { info: { total_token_usage: total, last_token_usage: total } };
    appendFileSync(rollout, line('event_msg', { type: 'token_count', ...usage }, '2026-11-29T08:00:01.000Z'));
    // calls 3 and 4: the budget is spent, each denied before it runs
    for (const [n, cmd] of [
      [3, 'pwd'],
      [4, 'date'],
    ] as const) {
      appendFileSync(rollout, functionCall(`call_${n}`, cmd));
      const reply = await answer('PreToolUse', `call_${n}`, cmd);
      expect(JSON.parse(reply).hookSpecificOutput.permissionDecision).toBe('deny');
      blocked(`call_${n}`, reply, cmd);
    }
    const stops = spendState(dir).entries.filter((e) => e.topic === 'spend_stop');
    expect(stops.map((e) => e.metadata.toolCall)).toEqual([3, 4]);
    expect(hookLog(dir)).toEqual([]);
  });

  it('a refused call between repeats is no attempt and no change: the repeat after it is still denied', async () => {
    const { dir, answer, rollout } = codexSession();
    const FAILING = 'npm ERR! Test failed.\n';
    for (let n = 1; n <= 3; n++) {
      appendFileSync(rollout, functionCall(`call_${n}`, 'npm test'));
      await answer('PreToolUse', `call_${n}`, 'npm test');
      await answer('PostToolUse', `call_${n}`, 'npm test', { tool_response: FAILING });
      appendFileSync(rollout, callOutput(`call_${n}`, 1, FAILING));
    }
    // nudged; the model tries to remove loopguard instead, and is refused before it runs
    appendFileSync(rollout, functionCall('call_4', 'npm uninstall -g @loopguard/cli'));
    const refused = JSON.parse(await answer('PreToolUse', 'call_4', 'npm uninstall -g @loopguard/cli'));
    expect(refused.hookSpecificOutput.permissionDecision).toBe('deny');
    appendFileSync(
      rollout,
      blockedOutput('call_4', JSON.stringify(refused), 'npm uninstall -g @loopguard/cli'),
    );
    // the same failing command again: nothing ran in between, so its result is foreseen and denied
    appendFileSync(rollout, functionCall('call_5', 'npm test'));
    const repeat = await answer('PreToolUse', 'call_5', 'npm test');
    expect(repeat).not.toBe('');
    expect(JSON.parse(repeat).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 5],
    ]);
  });

  it('scan counts a refused call and never observes it, as the hook does: the same verdicts at the same calls (codex47)', async () => {
    const { dir, answer, rollout } = codexSession();
    const FAILING = 'npm ERR! Test failed.\n';
    const REFUSED = 'rm -rf .loopguard';
    // two failures, the model's own call against loopguard four times over (refused each time,
    // never run), then the failing command again until it is denied
    const plan = [
      'npm test',
      'npm test',
      ...Array<string>(4).fill(REFUSED),
      'npm test',
      'npm test',
      'npm test',
    ];
    for (const [i, cmd] of plan.entries()) {
      const id = `call_${i + 1}`;
      appendFileSync(rollout, functionCall(id, cmd));
      const before = await answer('PreToolUse', id, cmd);
      if (before !== '') {
        appendFileSync(rollout, blockedOutput(id, before, cmd));
        continue;
      }
      await answer('PostToolUse', id, cmd, { tool_response: FAILING });
      appendFileSync(rollout, callOutput(id, 1, FAILING));
    }
    await answer('Stop', 'end', 'x');
    // the hook: the refusals are no loop and no change; the third failure (call 7) is nudged, the
    // next repeat denied (calls 8 and 9)
    expect(hookState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 7],
      ['loop_stop', 8],
      ['loop_stop', 9],
    ]);
    // scan of the rollout (no hook context written in it: its own replay must find the nudge)
    const scanned = await loopguard(dir, ['scan', '--json', rollout]);
    expect(scanned.code, scanned.stderr).toBe(0);
    const [session] = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    expect(session).toMatchObject({ toolCalls: 3, deniedCalls: 6 });
    expect(session?.loops).toEqual([
      expect.objectContaining({ kind: 'same_error', nudgeCall: 7, stopCall: 8, loopguard: 'stopped' }),
    ]);
  });

  it("a subagent's calls are its own run, read from its own rollout; the main thread's stay the session's (qa39)", async () => {
    const dir = temp('loopguard-codex-hook-');
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 1000000\n');
    const main = join(dir, 'rollout-main.jsonl');
    const sub = join(dir, 'rollout-sub.jsonl');
    writeFileSync(main, line('session_meta', { id: 's1', cwd: dir }));
    writeFileSync(sub, line('session_meta', { id: 'sub-1', cwd: dir }));
    // Codex 0.169.0 (multi_agent): a subagent's events carry the session's `session_id`, its own
    // `agent_id`, `agent_type` and its own rollout as `transcript_path`
    const subagent = { agent_id: 'sub-1', agent_type: 'default', transcript_path: sub };
    const total = { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, total_tokens: 110 };
    const tokens = (at: string) =>
      line(
        'event_msg',
        { type: 'token_count', info: { total_token_usage: total, last_token_usage: total } },
        at,
      );
    const run = async (rollout: string, n: number, cmd: string, code: number, extra = {}) => {
      const id = `call_${rollout === sub ? 'sub' : 'main'}_${n}`;
      const answer = (name: string, more: Record<string, unknown> = {}) =>
        answerHookEvent(
          'codex',
          event(dir, rollout, name, id, { tool_input: { command: cmd }, ...extra, ...more }),
          { env: {}, cwd: dir },
        );
      appendFileSync(rollout, tokens(`2026-11-29T08:0${n}:0${rollout === sub ? 1 : 2}.000Z`));
      appendFileSync(rollout, functionCall(id, cmd));
      const before = await answer('PreToolUse');
      if (before !== '') return before;
      const after = await answer('PostToolUse', { tool_response: code === 0 ? 'ok\n' : NO_SUCH_FILE });
      appendFileSync(rollout, callOutput(id, code, code === 0 ? 'ok\n' : NO_SUCH_FILE));
      return after;
    };
    // the two threads call in turn: the subagent's same failure, the main thread's progress
    for (let n = 1; n <= 5; n++) {
      await run(sub, n, 'cat missing.txt', 1, subagent);
      await run(main, n, `echo ${n} > f${n}.txt`, 0);
    }
    const { sessions, entries } = hookState(dir);
    const rows = Object.fromEntries(sessions.map((s) => [s.session_id, s]));
    expect(rows.s1).toMatchObject({ tool_calls: 5, stops: 0, nudges: 0, parent_session_id: null });
    expect(rows['sub-1']).toMatchObject({
      tool_calls: 3,
      stops: 2,
      parent_session_id: 's1',
      agent_type: 'default',
    });
    expect(entries.map((e) => [e.topic, e.metadata.sessionId, e.metadata.toolCall])).toEqual([
      ['loop_nudge', 'sub-1', 3],
      ['loop_stop', 'sub-1', 4],
      ['loop_stop', 'sub-1', 5],
    ]);
    // every reply once in the session's ledger: five of each thread's
    const ledger = spendState(dir).ledgers.find((l) => l.scope === 'session:codex:s1');
    expect(ledger?.ledger.totals).toMatchObject({ replies: 10 });
    expect(hookLog(dir)).toEqual([]);
  });

  it("twin subagents' replies of the same millisecond and running total each count in the session's budget (trust54)", async () => {
    const dir = temp('loopguard-codex-hook-');
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 1000000\n');
    const total = { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, total_tokens: 110 };
    const tokens = line(
      'event_msg',
      { type: 'token_count', info: { total_token_usage: total, last_token_usage: total } },
      '2026-11-29T08:00:01.000Z',
    );
    // two subagents the model started with one prompt: each its own rollout, one reply each, ended
    // in the same millisecond with the same running total
    for (const twin of ['sub-1', 'sub-2']) {
      const rollout = join(dir, `rollout-${twin}.jsonl`);
      writeFileSync(rollout, line('session_meta', { id: twin, cwd: dir }) + tokens);
      appendFileSync(rollout, functionCall(`call_${twin}`, 'ls'));
      const subagent = { agent_id: twin, agent_type: 'default', transcript_path: rollout };
      const answer = (name: string, more: Record<string, unknown> = {}) =>
        answerHookEvent(
          'codex',
          event(dir, rollout, name, `call_${twin}`, { tool_input: { command: 'ls' }, ...subagent, ...more }),
          { env: {}, cwd: dir },
        );
      expect(await answer('PreToolUse')).toBe('');
      await answer('PostToolUse', { tool_response: 'ok\n' });
    }
    const ledger = spendState(dir).ledgers.find((l) => l.scope === 'session:codex:s1');
    expect(ledger?.ledger.totals).toMatchObject({ replies: 2, tokens: 220 });
    expect(hookLog(dir)).toEqual([]);
  });

  it("a subagent's replies after its last call count at the main thread's next event, and scan's dollars are the record's (codex64)", async () => {
    const { dir, main, sub, reply } = codexThreads(10);
    const call = async (rollout: string, id: string, cmd: string, extra: Record<string, unknown> = {}) => {
      appendFileSync(rollout, functionCall(id, cmd));
      const answer = (name: string, more: Record<string, unknown> = {}) =>
        answerHookEvent(
          'codex',
          event(dir, rollout, name, id, { model: 'gpt-5', tool_input: { command: cmd }, ...extra, ...more }),
          { env: {}, cwd: dir },
        );
      expect(await answer('PreToolUse')).toBe('');
      await answer('PostToolUse', { tool_response: 'ok\n' });
      appendFileSync(rollout, callOutput(id, 0, 'ok\n'));
    };
    const subagent = { agent_id: 'sub-1', agent_type: 'default', transcript_path: sub };
    await call(main, 'call_main_1', 'echo one > one.txt');
    reply(main, 10);
    await call(sub, 'call_sub_1', 'ls', subagent);
    reply(sub, 11);
    await call(sub, 'call_sub_2', 'ls -a', subagent);
    reply(sub, 12);
    // the subagent's closing reply: no event of its thread comes after it
    appendFileSync(sub, line('response_item', { type: 'message', role: 'assistant', content: [] }));
    reply(sub, 13);
    await call(main, 'call_main_2', 'cat one.txt');
    reply(main, 14);
    await answerHookEvent('codex', event(dir, main, 'Stop', 'end', { model: 'gpt-5' }), {
      env: {},
      cwd: dir,
    });
    const { ledgers } = spendState(dir);
    const ledger = ledgers.find((l) => l.scope === 'session:codex:s1');
    const own = ledgers.find((l) => l.scope === 'subagent:codex:s1:sub-1');
    expect(own?.ledger.totals).toMatchObject({ replies: 3 });
    expect(ledger?.ledger.totals).toMatchObject({ replies: 5 });
    expect(hookLog(dir)).toEqual([]);
    // scan of the two rollouts: the session's record holds its subagent's dollars, as its rollouts do
    const scanned = await loopguard(dir, ['scan', '--json', '--no-cache', join(dir, 'sessions')]);
    expect(scanned.code, scanned.stderr).toBe(0);
    const sessions = (JSON.parse(scanned.stdout) as ScanReport).sessions;
    expect(sessions.map((s) => [s.sessionId, s.parentSessionId])).toEqual(
      expect.arrayContaining([
        ['s1', undefined],
        ['sub-1', 's1'],
      ]),
    );
    for (const session of sessions) expect(session.recordDiffers, session.sessionId).toBeUndefined();
  });

  describe('a session whose subagent passed its budget, its main thread ending its turn with no call (doors67)', () => {
    // a main thread's call, then its subagent's three calls (the third warned at 90 %), whose closing
    // reply passes the session's budget ($0.0005: 5 replies of $0.000225)
    const setUp = async () => {
      const { dir, main, sub, reply: replyAt } = codexThreads(0.0005);
      let second = 10;
      const reply = (rollout: string) => replyAt(rollout, second++);
      const subagent = { agent_id: 'sub-1', agent_type: 'default', transcript_path: sub };
      // a call as Codex makes it: denied (its output says so), or run; the hook's answer
      const call = async (rollout: string, id: string, cmd: string) => {
        appendFileSync(rollout, functionCall(id, cmd));
        const extra = rollout === sub ? subagent : {};
        const answer = (name: string, more: Record<string, unknown> = {}) =>
          answerHookEvent(
            'codex',
            event(dir, rollout, name, id, {
              model: 'gpt-5',
              tool_input: { command: cmd },
              ...extra,
              ...more,
            }),
            { env: {}, cwd: dir },
          );
        const pre = await answer('PreToolUse');
        if (pre.includes('"deny"')) {
          appendFileSync(rollout, blockedOutput(id, pre, cmd));
          return pre;
        }
        await answer('PostToolUse', { tool_response: 'ok\n' });
        appendFileSync(rollout, callOutput(id, 0, 'ok\n'));
        return pre;
      };
      const turnEnd = () =>
        answerHookEvent('codex', event(dir, main, 'Stop', 'end', { model: 'gpt-5' }), { env: {}, cwd: dir });
      const views = async () =>
        (
          JSON.parse((await loopguard(dir, ['status', '--json'])).stdout).sessions.sessions as Array<{
            sessionId: string;
            verdict: string;
            summary: string;
          }>
        ).map((v) => [v.sessionId, v.verdict, v.summary]);
      await call(main, 'call_main_1', 'echo one > one.txt');
      reply(main);
      for (const [n, cmd] of ['ls', 'ls -a', 'ls -la'].entries()) {
        expect(await call(sub, `call_sub_${n + 1}`, cmd)).not.toContain('"deny"');
        reply(sub);
      }
      return { dir, main, sub, call, reply, turnEnd, views };
    };

    it('its closing reply: no call was denied, loopguard stopped nothing; the next call is denied and said at it', async () => {
      const { dir, main, call, reply, turnEnd, views } = await setUp();
      reply(main);
      await turnEnd();
      expect(hookLog(dir)).toEqual([]);
      expect(spendState(dir).entries.map((e) => e.topic)).toEqual(['spend_warning']);
      expect(await views()).toEqual([
        ['s1', 'running', 'running, 1 tool call ran, $0.0011 of $0.0005'],
        ['sub-1', 'running', 'running, 3 tool calls ran'],
      ]);
      // the main thread's next turn: its first call is denied, the session's stop, where its rollout holds it
      expect(await call(main, 'call_main_2', 'cat one.txt')).toContain('"deny"');
      expect((await views())[0]).toEqual([
        's1',
        'stopped_on_spend',
        'stopped on spend at call 2 (budget reached), 1 tool call ran, $0.0011 of $0.0005',
      ]);
    });

    it("its next call denied: the session's sentence says its subagent was stopped on spend, the stop in the subagent's run", async () => {
      const { dir, sub, main, call, reply, turnEnd, views } = await setUp();
      expect(await call(sub, 'call_sub_4', 'ls -lah')).toContain('"deny"');
      reply(sub);
      reply(main);
      await turnEnd();
      expect(hookLog(dir)).toEqual([]);
      const [session, subagent] = await views();
      expect(subagent).toEqual([
        'sub-1',
        'stopped_on_spend',
        expect.stringMatching(/^stopped on spend at call 4 \(budget reached\), 3 tool calls ran/),
      ]);
      expect(session).toEqual([
        's1',
        'running',
        expect.stringMatching(
          /^running, 1 tool call ran, \$[\d.]+ of \$0\.0005; 1 subagent stopped on spend$/,
        ),
      ]);
      // scan: the subagent's rollout holds the stop, the record agrees, and says the session's sentence
      const scanned = await loopguard(dir, ['scan', '--json', '--no-cache', join(dir, 'sessions')]);
      expect(scanned.code, scanned.stderr).toBe(0);
      const rows = (JSON.parse(scanned.stdout) as ScanReport).sessions;
      expect(rows.find((row) => row.sessionId === 'sub-1')?.recordDiffers).toBeUndefined();
      expect(rows.find((row) => row.sessionId === 's1')?.record?.summary).toBe(session?.[2]);
    });
  });

  describe("a subagent's replies no event of its own names (sess66)", () => {
    /** A session's rollout in its day folder, its subagent's in `subDay`'s, and a main-thread call at `now`. */
    function threads(subDay: string) {
      const dir = temp('loopguard-codex-hook-');
      writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: 10\n');
      const day = join(dir, 'sessions', '2026', '11', '29');
      mkdirSync(day, { recursive: true });
      mkdirSync(join(dir, 'sessions', subDay), { recursive: true });
      const main = join(day, 'rollout-2026-11-29T23-50-00-s1.jsonl');
      const sub = join(dir, 'sessions', subDay, 'rollout-2026-11-29T23-59-59-sub-1.jsonl');
      const model = line('turn_context', { model: 'gpt-5' });
      writeFileSync(main, line('session_meta', { id: 's1', cwd: dir }) + model);
      writeFileSync(sub, line('session_meta', { id: 'sub-1', cwd: dir, parent_thread_id: 's1' }) + model);
      let total = 0;
      const reply = (rollout: string) => {
        total += 110;
        const last = { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, total_tokens: 110 };
        const info = { total_token_usage: { ...last, total_tokens: total }, last_token_usage: last };
        appendFileSync(
          rollout,
          line('event_msg', { type: 'token_count', info }, `2026-11-29T23:59:${total % 60}.000Z`),
        );
      };
      const call = async (
        rollout: string,
        id: string,
        tool: string,
        output: string,
        now: number,
        extra: Record<string, unknown> = {},
      ) => {
        appendFileSync(rollout, functionCall(id, 'ls'));
        const answer = (name: string, more: Record<string, unknown> = {}) =>
          answerHookEvent(
            'codex',
            event(dir, rollout, name, id, {
              model: 'gpt-5',
              tool_name: tool,
              tool_input: {},
              ...extra,
              ...more,
            }),
            { env: {}, cwd: dir, now: () => now },
          );
        await answer('PreToolUse');
        await answer('PostToolUse', { tool_response: output });
        appendFileSync(rollout, callOutput(id, 0, output));
      };
      const ledgers = () =>
        Object.fromEntries(spendState(dir).ledgers.map((l) => [l.scope, l.ledger.totals]));
      return { dir, main, sub, reply, call, ledgers };
    }
    const BEFORE_MIDNIGHT = Date.UTC(2026, 10, 29, 23, 55);
    const AFTER_MIDNIGHT = Date.UTC(2026, 10, 30, 0, 10);

    it('one that made no tool call is counted from its spawn_agent result on', async () => {
      const { main, sub, reply, call, ledgers, dir } = threads('2026/11/29');
      reply(main);
      await call(main, 'call_spawn', 'spawn_agent', '{"agent_id":"sub-1","nickname":"Ada"}', BEFORE_MIDNIGHT);
      // the subagent answers in two replies, with no tool call: no event of its own
      reply(sub);
      appendFileSync(sub, line('response_item', { type: 'message', role: 'assistant', content: [] }));
      reply(sub);
      await call(main, 'call_main_2', 'exec_command', 'ok\n', BEFORE_MIDNIGHT);
      // before: the main thread's one reply, the subagent's two in no ledger
      expect(ledgers()['session:codex:s1']).toMatchObject({ replies: 3 });
      expect(ledgers()['subagent:codex:s1:sub-1']).toMatchObject({ replies: 2 });
      expect(hookLog(dir)).toEqual([]);
    });

    it("one whose rollout is in the next day's folder is counted past its last call", async () => {
      const { main, sub, reply, call, ledgers, dir } = threads('2026/11/30');
      reply(main);
      const subagent = { agent_id: 'sub-1', agent_type: 'default', transcript_path: sub };
      await call(sub, 'call_sub_1', 'exec_command', 'ok\n', AFTER_MIDNIGHT, subagent);
      reply(sub);
      // its closing reply: no event of its thread comes after it
      appendFileSync(sub, line('response_item', { type: 'message', role: 'assistant', content: [] }));
      reply(sub);
      await call(main, 'call_main_2', 'exec_command', 'ok\n', AFTER_MIDNIGHT);
      // before: the subagent's closing reply uncounted (its rollout looked for in the session's day folder only)
      expect(ledgers()['subagent:codex:s1:sub-1']).toMatchObject({ replies: 2 });
      expect(ledgers()['session:codex:s1']).toMatchObject({ replies: 3 });
      expect(hookLog(dir)).toEqual([]);
    });
  });

  it('a rollout it cannot read fails open: silent, one line in the hook log', async () => {
    const dir = temp('loopguard-codex-hook-');
    const reply = await answerHookEvent(
      'codex',
      event(dir, join(dir, 'gone.jsonl'), 'PostToolUse', 'call_1', { tool_response: 'x' }),
      { env: {}, cwd: dir },
    );
    expect(reply).toBe('');
    expect(hookLog(dir)).toHaveLength(1);
  });

  it('renders no reply that continues, stops a turn or allows', () => {
    const base = { sessionId: 's', projectDir: '/p', tool: 'shell', input: { command: 'ls' } };
    const before: HookEvent = { ...base, eventName: 'PreToolUse', kind: 'before_tool' };
    const after: HookEvent = {
      ...base,
      eventName: 'PostToolUse',
      kind: 'after_tool',
      output: '',
      error: false,
    };
    const stop: HookReply = {
      kind: 'stop',
      message: 'Stopped (x): y',
      stopReason: 'loopguard: y',
      denied: true,
    };
    const nudge: HookReply = { kind: 'nudge', message: 'Loop detected (x): y' };
    for (const [e, r] of [
      [before, stop],
      [after, stop],
      [after, nudge],
      [before, nudge],
    ] as const) {
      const text = codexHook.render(e, r);
      expect(text).not.toMatch(/"continue"|"stopReason"|"allow"|"approve"/);
      expect(JSON.parse(text).hookSpecificOutput.hookEventName).toBe(e.eventName);
    }
    expect(codexHook.render(after, { kind: 'silent' })).toBe('');
  });

  it('a denial reads as one sentence once Codex adds ". Command: …" to it, not "it.. Command" (qa39)', () => {
    const before: HookEvent = {
      sessionId: 's',
      projectDir: '/p',
      tool: 'shell',
      input: { command: 'ls' },
      eventName: 'PreToolUse',
      kind: 'before_tool',
    };
    const reason = (reply: HookReply) =>
      JSON.parse(codexHook.render(before, reply)).hookSpecificOutput.permissionDecisionReason as string;
    const stop = 'Stopped (x): y.\nloopguard refused this call, and refuses every repeat of it.';
    expect(reason({ kind: 'stop', message: stop, stopReason: 'loopguard: y', denied: true })).toBe(
      'Stopped (x): y.\nloopguard refused this call, and refuses every repeat of it',
    );
    expect(reason({ kind: 'refuse', message: 'loopguard refused this call: z (see y).' })).toBe(
      'loopguard refused this call: z (see y)',
    );
  });

  it("stops reading the rollout before the event's own call; at the end of a turn it reads to the end", () => {
    const dir = temp('loopguard-codex-rollout-');
    const rollout = join(dir, 'rollout.jsonl');
    writeFileSync(
      rollout,
      functionCall('a', 'ls') +
        callOutput('a', 2, 'ls: x\n') +
        functionCall('b', 'pwd') +
        callOutput('b', 0, '/\n') +
        '{"cut',
    );
    const upToB = readRolloutSteps(rollout, 0, 'b');
    expect(upToB.steps).toEqual([
      { type: 'action', tool: 'shell', input: { cmd: 'ls' } },
      { type: 'observation', tool: 'shell', output: 'ls: x\n', error: true },
    ]);
    expect(upToB.callIds).toEqual(['a', 'a']);
    const rest = readRolloutSteps(rollout, upToB.offset, undefined);
    expect(rest.steps.map((s) => s.type)).toEqual(['action', 'observation']);
    // a line not yet whole is read next time
    expect(readRolloutSteps(rollout, rest.offset, undefined).steps).toEqual([]);
  });
});

describe("Codex's trust in init's hooks", () => {
  it("hashes a hook as the pinned Codex's hooks/list does", () => {
    // currentHash values the pinned Codex 0.169.0 reported for these two hooks (app-server hooks/list)
    expect(
      codexHookHash('pre_tool_use', '', { type: 'command', command: '/bin/echo user-pre', timeout: 10 }),
    ).toBe('sha256:d69c18dc79400910175a4751465bf265274b63f13110dbc74363d8da9a6b85e2');
    expect(
      codexHookHash('stop', undefined, {
        type: 'command',
        command: '/bin/echo stop',
        timeout: 10,
        loopguard: { owns: 'list' },
      }),
    ).toBe('sha256:b5692673ad654992be1324ef3743787e9fada201fa8c8c05847988d53892e8a5');
  });

  it("reads trusted, modified and untrusted hooks, and the project's trust, from config.toml", () => {
    const home = temp('loopguard-codex-home-');
    const project = temp('loopguard-codex-project-');
    mkdirSync(join(project, '.codex'));
    const file = join(project, '.codex', 'hooks.json');
    const entry = (command: string) => ({
      type: 'command',
      command,
      timeout: 10,
      loopguard: { owns: 'entry' },
    });
    const text = JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: 'other' }, entry('lg hook codex')] }],
        PostToolUse: [{ matcher: '', hooks: [entry('lg hook codex')] }],
        Stop: [{ hooks: [entry('lg hook codex')] }],
      },
    });
    writeFileSync(file, text);
    const pre = codexHookHash('pre_tool_use', '', entry('lg hook codex'));
    writeFileSync(
      join(home, 'config.toml'),
      `[projects."${project}"]\ntrust_level = "trusted"\n\n[hooks.state."${file}:pre_tool_use:0:1"]\ntrusted_hash = "${pre}"\n\n[hooks.state."${file}:post_tool_use:0:0"]\ntrusted_hash = "sha256:old"\n`,
    );
    const report = codexTrust(file, text, home, project);
    expect(report.projectTrusted).toBe(true);
    expect(report.hooks.map((h) => [h.key.slice(file.length), h.status])).toEqual([
      [':pre_tool_use:0:1', 'trusted'],
      [':post_tool_use:0:0', 'modified'],
      [':stop:0:0', 'untrusted'],
    ]);
    expect(codexTrust(file, text, temp('loopguard-codex-none-'), project).projectTrusted).toBe(false);
  });
});

describe("the spend guard's reading of a Codex rollout", () => {
  it("counts each token_count's last reply, priced at the event's model, with the event's time and the thread's total as its id", () => {
    const usage = {
      info: {
        total_token_usage: { input_tokens: 20, cached_input_tokens: 4, output_tokens: 10, total_tokens: 30 },
        last_token_usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 5, total_tokens: 15 },
      },
    };
    const text =
      line('event_msg', { type: 'token_count', ...usage }, '2026-11-29T08:00:01.000Z') +
      line('event_msg', { type: 'token_count', info: null }) +
      line('response_item', { type: 'message', role: 'assistant', content: [] });
    expect(usageOfLines(text, 'codex', 'gpt-5')).toEqual([
      {
        replyId: 'codex:2026-11-29T08:00:01.000Z:30',
        model: 'gpt-5',
        inputTokens: 6,
        cacheReadTokens: 4,
        cacheCreationTokens: 0,
        outputTokens: 5,
        at: Date.parse('2026-11-29T08:00:01.000Z'),
      },
    ]);
  });
});

describe("the project's day counts two Codex threads' replies of the same millisecond (trust50)", () => {
  it("each once: their ids hold the thread's running total besides the time; a copy of one (a fork) still counts once", () => {
    const at = '2026-11-29T08:00:01.000Z';
    const reply = (total: number) =>
      line(
        'event_msg',
        {
          type: 'token_count',
          info: {
            total_token_usage: {
              input_tokens: total - 5,
              cached_input_tokens: 0,
              output_tokens: 5,
              total_tokens: total,
            },
            last_token_usage: {
              input_tokens: 10,
              cached_input_tokens: 0,
              output_tokens: 5,
              total_tokens: 15,
            },
          },
        },
        at,
      );
    // two subagents (or two sessions of the project) whose replies end in the same millisecond
    const first = usageOfLines(reply(15), 'codex', 'gpt-5');
    const second = usageOfLines(reply(45), 'codex', 'gpt-5');
    const day = new SpendLedger();
    for (const record of [...first, ...second, ...first]) day.add(record, () => 0, 0);
    expect(day.totals).toMatchObject({ replies: 2, tokens: 30 });
  });
});

describe('loopguard init codex', () => {
  it('says an untrusted project and untrusted hooks, and --remove and uninstall leave nothing', async () => {
    const dir = temp('loopguard-codex-init-');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    const init = await loopguard(dir, ['init', 'codex'], env);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      '.codex/hooks.json: loopguard guards Codex on PreToolUse, PostToolUse, Stop',
    );
    expect(init.stdout).toContain('Codex does not trust this project yet');
    expect(init.stdout).toContain(
      "Codex skips loopguard's hooks until you trust them (4 of 4 not trusted yet)",
    );
    const hooks = JSON.parse(readFileSync(join(dir, '.codex', 'hooks.json'), 'utf8'));
    expect(Object.keys(hooks.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']);
    expect(hooks.hooks.PreToolUse[0].hooks[0].command).toMatch(/ hook codex$/);
    // within Codex's cap of a SessionEnd hook (a longer one it cuts, with a warning at each start)
    expect(hooks.hooks.SessionEnd[0].hooks[0].timeout).toBe(3);
    expect(hooks.hooks.Stop[0].hooks[0].timeout).toBeGreaterThan(3);
    const removed = await loopguard(dir, ['init', 'codex', '--remove'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(dir, '.codex', 'hooks.json'))).toBe(false);

    const user = await loopguard(dir, ['init', 'codex', '--user'], env);
    expect(user.code, user.stderr).toBe(0);
    expect(existsSync(join(env.CODEX_HOME, 'hooks.json'))).toBe(true);
    const uninstall = await loopguard(dir, ['uninstall'], env);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(existsSync(join(env.CODEX_HOME, 'hooks.json'))).toBe(false);
  });

  it("init then --remove gives the user's own hooks.json and config.toml back byte for byte (codex47)", async () => {
    const dir = temp('loopguard-codex-init-');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    const own = `{\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "echo mine" } ] } ]\n  }\n}\n`;
    const config = `model = "o3"\n\n[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`;
    mkdirSync(join(dir, '.codex'));
    writeFileSync(join(dir, '.codex', 'hooks.json'), own);
    writeFileSync(join(env.CODEX_HOME, 'hooks.json'), own);
    writeFileSync(join(env.CODEX_HOME, 'config.toml'), config);
    for (const scope of [[], ['--user']]) {
      const init = await loopguard(dir, ['init', 'codex', ...scope], env);
      expect(init.code, init.stderr).toBe(0);
      const removed = await loopguard(dir, ['init', 'codex', ...scope, '--remove'], env);
      expect(removed.code, removed.stderr).toBe(0);
    }
    expect(readFileSync(join(dir, '.codex', 'hooks.json'), 'utf8')).toBe(own);
    expect(readFileSync(join(env.CODEX_HOME, 'hooks.json'), 'utf8')).toBe(own);
    expect(readFileSync(join(env.CODEX_HOME, 'config.toml'), 'utf8')).toBe(config);
  });

  it("qa66: hooks trusted while Codex's hooks feature is off: init never says they run now", async () => {
    const dir = temp('loopguard-codex-init-');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    const file = join(env.CODEX_HOME, 'hooks.json');
    const { hooks } = codexTrust(file, readFileSync(file, 'utf8'), env.CODEX_HOME);
    const trust = hooks.map(
      (h) => `[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = "${h.currentHash}"\n`,
    );
    writeFileSync(join(env.CODEX_HOME, 'config.toml'), ['[features]\nhooks = false\n', ...trust].join('\n'));
    const again = await loopguard(dir, ['init', 'codex', '--user'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('warning: loopguard is switched off (hooks = false in [features] of');
    expect(again.stdout).not.toContain('they run now');
    expect(again.stdout).toContain(
      "Codex trusts loopguard's 4 hooks: they run once the switch above is taken out",
    );
  });

  it('a user who trusted the three hooks of an earlier init is told which one is new, by its event (qa49)', async () => {
    // an earlier init registered no SessionEnd: its three hooks trusted, then init adds the fourth
    const dir = temp('loopguard-codex-init-');
    const env = { HOME: temp('loopguard-codex-user-'), CODEX_HOME: temp('loopguard-codex-home-') };
    expect((await loopguard(dir, ['init', 'codex', '--user'], env)).code).toBe(0);
    const file = join(env.CODEX_HOME, 'hooks.json');
    const { hooks } = codexTrust(file, readFileSync(file, 'utf8'), env.CODEX_HOME);
    const trusted = hooks.filter((hook) => !hook.key.includes(':session_end:'));
    expect(trusted).toHaveLength(3);
    writeFileSync(
      join(env.CODEX_HOME, 'config.toml'),
      trusted
        .map((h) => `[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = "${h.currentHash}"\n`)
        .join('\n'),
    );
    const again = await loopguard(dir, ['init', 'codex', '--user'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      'Codex skips loopguard\'s hooks until you trust them (1 of 4 not trusted yet): start codex: it asks about them itself ("Hooks need review"): choose "Trust all and continue", or "Review hooks" to trust loopguard\'s SessionEnd hook alone (/hooks does the same later);',
    );
    // never the slash command alone: Codex 0.169.0 asks at its start, before any can be typed (polish61)
    expect(again.stdout).not.toContain('type /hooks');
  });

  it('refuses a relative CODEX_HOME in one line naming it, writing nothing', async () => {
    const dir = temp('loopguard-codex-init-');
    const result = await loopguard(dir, ['init', 'codex'], {
      HOME: temp('loopguard-codex-user-'),
      CODEX_HOME: 'codex',
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^loopguard: CODEX_HOME is not an absolute path \("codex"\)/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, '.codex'))).toBe(false);
  });

  // codex71: `--user` made the missing folder, so a mistyped CODEX_HOME got the hooks while Codex
  // 0.169.0 refuses to start there ('CODEX_HOME points to "…", but that path does not exist', checked)
  it.each([
    ['--user', 'missing'],
    ['--user', 'a file'],
    ['--project', 'missing'],
  ])(
    'init codex %s with a CODEX_HOME that is %s: one line naming it, nothing written',
    async (scope, what) => {
      const dir = temp('loopguard-codex-init-');
      const HOME = temp('loopguard-codex-user-');
      const CODEX_HOME = join(HOME, 'codex-hom');
      if (what === 'a file') writeFileSync(CODEX_HOME, '');
      const result = await loopguard(dir, ['init', 'codex', scope], { HOME, CODEX_HOME });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        `loopguard: CODEX_HOME points to ${JSON.stringify(CODEX_HOME)}, ${what === 'missing' ? 'which does not exist' : 'which is not a folder'}: Codex starts nowhere then; make that folder, or unset CODEX_HOME for ~/.codex`,
      ]);
      expect(existsSync(join(dir, '.codex'))).toBe(false);
      expect(what === 'missing' ? existsSync(CODEX_HOME) : readFileSync(CODEX_HOME, 'utf8')).toBe(
        what === 'missing' ? false : '',
      );
      expect(existsSync(join(HOME, '.loopguard'))).toBe(false);
    },
  );

  it('init codex --user with CODEX_HOME unset makes ~/.codex, as Codex itself does', async () => {
    const dir = temp('loopguard-codex-init-');
    const HOME = temp('loopguard-codex-user-');
    const result = await loopguard(dir, ['init', 'codex', '--user'], { HOME });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(HOME, '.codex', 'hooks.json'))).toBe(true);
  });
});
