import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openLoopGuardDatabase, SqliteStatusReader } from '@loopguard/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { statuslineMain } from '../src/statusline/statuslineMain.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { codexEvent, codexFunctionCall, hookCall } from './hookHelpers.js';
import { bin } from './runHelpers.js';
import { expectOneStory } from './sessionStory.js';

// sessions50: a session whose agent CLI was killed without its end event (a closed terminal, `kill
// -9`) read `running` for 10 minutes in every door. The hooks now record the agent's process (the
// hook's parent, or the parent's parent past the `sh -c` Claude Code runs a command hook through:
// checked with the real Claude Code 2.1.330, Gemini CLI 0.61.0 and Codex 0.169.0), and every door
// says the session ended once that process is gone. Each agent below is a stand-in process that runs
// the built hook as its CLI does, then is killed.

/** One tool call that ran, as each CLI's hook receives it, and the way each CLI starts a command hook. */
const AGENTS = {
  claude: {
    env: (dir: string) => ({ CLAUDE_PROJECT_DIR: dir }),
    how: 'shell',
    call: {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo one > one.txt' },
      tool_response: { stdout: '', stderr: '', interrupted: false },
      tool_use_id: 'toolu_1',
    },
  },
  gemini: {
    env: (dir: string) => ({ GEMINI_PROJECT_DIR: dir }),
    how: 'bash',
    call: {
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'echo one > one.txt' },
      tool_response: { llmContent: 'Output: (empty)', returnDisplay: '' },
    },
  },
  codex: {
    env: (_dir: string) => ({}),
    how: 'bash',
    call: {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo one > one.txt' },
      tool_response: '',
      tool_use_id: 'call_1',
    },
  },
} as const;

type Agent = keyof typeof AGENTS;

/**
 * A stand-in for the agent CLI: runs `loopguard hook <agent>` on each event (through `/bin/sh -c` as
 * Claude Code does, `bash -c` as Gemini CLI 0.61.0 and Codex 0.169.0 do, directly, or through
 * a `launcher` started for each call, as `npx loopguard hook …` is; a shell's command line holds
 * two commands, as `init`'s does, so that the shell is not replaced by the hook), prints the hook's
 * answers, then waits.
 */
const STAND_IN = `
const { spawnSync } = require('node:child_process');
const [bin, agent, how, events] = process.argv.slice(1);
const q = (s) => "'" + s.replace(/'/g, "'\\\\''") + "'";
const launch = "require('node:child_process').spawnSync(process.execPath, process.argv.slice(1), { stdio: 'inherit' })";
const replies = [];
const statuses = JSON.parse(events).map((event) => {
  const input = JSON.stringify(event);
  const command = q(process.execPath) + ' ' + q(bin) + ' hook ' + agent + ' || exit 1';
  const shells = { shell: ['/bin/sh', '-c'], bash: ['bash', '-c'] };
  const r = how in shells
    ? spawnSync(shells[how][0], [shells[how][1], command], { input })
    : how === 'launcher'
      ? spawnSync(process.execPath, ['-e', launch, bin, 'hook', agent], { input })
      : spawnSync(process.execPath, [bin, 'hook', agent], { input });
  replies.push(String(r.stdout));
  return r.status;
});
if (process.env.STAND_IN_REPLIES) require('node:fs').writeFileSync(process.env.STAND_IN_REPLIES, JSON.stringify(replies));
process.stdout.write('answered ' + statuses.join(' ') + '\\n');
setInterval(() => {}, 60_000);
`;

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** The stand-in's `n`th tool call (1-based) of `agent`'s session `s1` in `dir`, as its CLI sends it. */
function callEvent(agent: Agent, dir: string, n: number): Record<string, unknown> {
  const { call } = AGENTS[agent];
  const id = 'tool_use_id' in call ? { tool_use_id: `${call.tool_use_id}_${n}` } : {};
  return { session_id: 's1', cwd: dir, ...call, tool_input: { command: `echo ${n} > ${n}.txt` }, ...id };
}

/**
 * Starts the stand-in of `agent` in `dir`, and resolves once its hook calls have answered: `calls`
 * tool calls (numbered from `first`) or the `events` given, then `more`, each hook started as the CLI
 * starts it unless `how` says otherwise; `replies` for its transcript.
 */
async function startAgent(
  agent: Agent,
  dir: string,
  {
    calls = 2,
    how = AGENTS[agent].how as string,
    first = 1,
    events: given = Array.from({ length: calls }, (_, i) => callEvent(agent, dir, first + i)),
    more = [],
    replies = '',
  }: {
    calls?: number;
    how?: string;
    first?: number;
    events?: unknown[];
    more?: Array<Record<string, unknown>>;
    replies?: string;
  } = {},
): Promise<ChildProcess> {
  const { env } = AGENTS[agent];
  const events = [...given, ...more];
  const child = spawn(process.execPath, ['-e', STAND_IN, bin, agent, how, JSON.stringify(events)], {
    cwd: dir,
    env: { ...process.env, ...env(dir), LOOPGUARD_HOOK: '', STAND_IN_REPLIES: replies },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.push(child);
  const answered = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(data.toString()));
    child.once('exit', () => reject(new Error('the stand-in exited')));
  });
  expect(answered).toBe(`answered ${Array(events.length).fill(0).join(' ')}\n`);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-killed-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), '');
  return dir;
}

const database = (dir: string) => join(dir, '.loopguard', 'state.db');

/** The recorded agent process's pid (`linux:<uid>:<boot>:<pid ns>:<pid>:<start>`). */
function recordedPid(dir: string): number | undefined {
  const db = openLoopGuardDatabase(database(dir), { readonly: true });
  try {
    const row = db.db.prepare('SELECT agent_process FROM hook_sessions').get() as {
      agent_process: string | null;
    };
    return row.agent_process === null ? undefined : Number(row.agent_process.split(':').at(-2));
  } finally {
    db.close();
  }
}

/** What `status --json` and `status` (the terminal) say of the session, and the counts. */
async function status(dir: string) {
  const json = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: dir } });
  expect(await runCli(['status', '--json'], json), json.err()).toBe(EXIT_CODES.ok);
  const body = JSON.parse(json.out()).sessions;
  const terminal = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: dir } });
  expect(await runCli(['status'], terminal), terminal.err()).toBe(EXIT_CODES.ok);
  return {
    verdict: body.sessions[0].verdict as string,
    summary: body.sessions[0].summary as string,
    running: body.counts.running as number,
    terminal: terminal.out(),
  };
}

/** What the dashboard's filter "running" lists (the server's reader of the project's database). */
async function dashboardRunning(dir: string): Promise<number> {
  const db = openLoopGuardDatabase(database(dir), { readonly: true });
  try {
    return (await new SqliteStatusReader(db).sessionPage({ limit: 10, verdict: 'running' })).sessions.length;
  } finally {
    db.close();
  }
}

/**
 * Claude Code's transcript of session `s1` in `dir`: the reply that asked for the call `input`, and
 * the call's result unless `returned` is false (the session was killed before it).
 */
function claudeTranscript(dir: string, input: unknown, returned: boolean): string {
  const file = join(mkdtempSync(join(tmpdir(), 'loopguard-killed-claude-')), 's1.jsonl');
  const base = { sessionId: 's1', cwd: dir, isSidechain: false, timestamp: new Date().toISOString() };
  const reply = {
    ...base,
    type: 'assistant',
    requestId: 'req_1',
    message: {
      id: 'msg_1',
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input }],
      usage: { input_tokens: 1000, output_tokens: 50 },
    },
  };
  const result = {
    ...base,
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '' }] },
  };
  appendFileSync(
    file,
    [reply, ...(returned ? [result] : [])].map((record) => `${JSON.stringify(record)}\n`).join(''),
  );
  return file;
}

/**
 * The session of one tool call in `dir`, its agent `child` recorded: running in every door, then
 * ended (`no loop found, 1 tool call ran`) once `child` is killed.
 */
async function expectRunningThenEnded(dir: string, child: ChildProcess): Promise<void> {
  expect(recordedPid(dir)).toBe(child.pid);
  expect(await status(dir)).toMatchObject({
    verdict: 'running',
    summary: 'running, 1 tool call ran',
    running: 1,
  });
  expect(await dashboardRunning(dir)).toBe(1);
  await kill(child);
  expect(await status(dir)).toMatchObject({
    verdict: 'clean',
    summary: 'no loop found, 1 tool call ran',
    running: 0,
  });
  expect(await dashboardRunning(dir)).toBe(0);
}

describe.each(Object.keys(AGENTS) as Agent[])('%s: an agent killed without its end event', (agent) => {
  it("records the agent's process (not the shell), and every door says the session ended once it is gone", async () => {
    if (process.platform !== 'linux') return; // elsewhere the 10 minutes hold (no /proc)
    const dir = project();
    const child = await startAgent(agent, dir);
    expect(recordedPid(dir)).toBe(child.pid);
    expect(await status(dir)).toMatchObject({ verdict: 'running', running: 1 });
    expect(await dashboardRunning(dir)).toBe(1);
    await kill(child);
    const after = await status(dir);
    expect(after).toMatchObject({ verdict: 'clean', summary: 'no loop found, 2 tool calls ran', running: 0 });
    expect(after.terminal).toContain('no loop found, 2 tool calls ran');
    expect(after.terminal).not.toMatch(/running/);
    expect(await dashboardRunning(dir)).toBe(0);
  });
});

describe.each(Object.keys(AGENTS) as Agent[])(
  '%s: a hook started through a launcher for each call',
  (agent) => {
    it('qa51: never reads ended while its session runs, the first call included (`npx loopguard hook …`)', async () => {
      if (process.platform !== 'linux') return;
      const dir = project();
      const child = await startAgent(agent, dir, { calls: 1, how: 'launcher' });
      // the launcher of the first call is gone, the agent runs on: the hook recorded the agent, past the launcher
      expect(await status(dir)).toMatchObject({ verdict: 'running', running: 1 });
      expect(await dashboardRunning(dir)).toBe(1);
      await kill(child);
    });
  },
);

describe.each(Object.keys(AGENTS) as Agent[])('%s: an agent killed during its first tool call', (agent) => {
  for (const how of [AGENTS[agent].how, 'launcher'])
    it(`sessions53: every door says the session ended at once (its hooks started ${how === 'launcher' ? 'through a launcher' : 'as the CLI starts them'})`, async () => {
      if (process.platform !== 'linux') return;
      const dir = project();
      const child = await startAgent(agent, dir, { calls: 1, how });
      await expectRunningThenEnded(dir, child);
    });
});

/** The event each CLI's hook receives before a tool call runs (its first, in session `s1` of `dir`). */
const BEFORE = {
  claude: (dir: string) => ({
    session_id: 's1',
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npm install' },
    tool_use_id: 'toolu_1',
  }),
  gemini: (dir: string) => ({
    session_id: 's1',
    cwd: dir,
    hook_event_name: 'BeforeTool',
    tool_name: 'run_shell_command',
    tool_input: { command: 'npm install' },
  }),
  // Codex writes the call to its rollout, then runs PreToolUse
  codex: (dir: string) => {
    const rollout = join(dir, 'rollout.jsonl');
    writeFileSync(rollout, codexFunctionCall('call_1', 'npm install'));
    return codexEvent(dir, rollout, 'PreToolUse', 'call_1', { tool_input: { command: 'npm install' } });
  },
} as const;

describe.each(Object.keys(BEFORE) as Array<keyof typeof BEFORE>)(
  '%s: an agent killed before its first tool call returned',
  (agent) => {
    it('sessions55: is a session with that call in every door, running, then ended once the agent is gone', async () => {
      if (process.platform !== 'linux') return;
      const dir = project();
      const child = await startAgent(agent, dir, { events: [BEFORE[agent](dir)] });
      await expectRunningThenEnded(dir, child);
    });
  },
);

describe('claude: a session killed before its first tool call returned, door by door', () => {
  it('sessions55: status, --session, the dashboard, scan and the status line tell one story', async () => {
    if (process.platform !== 'linux') return;
    const dir = project();
    await kill(await startAgent('claude', dir, { events: [BEFORE.claude(dir)] }));
    // Claude Code's transcript of the session: the call, and no result
    const file = claudeTranscript(dir, { command: 'npm install' }, false);
    const stories = await expectOneStory(dir, { transcripts: [file], env: { HOME: dir } });
    expect([...stories.values()]).toEqual(['no loop found, 1 tool call ran']);
  });
});

describe('claude: a session whose first call returns after its row was made at the call', () => {
  it('counts that call once, parallel calls included (sessions55)', async () => {
    const dir = project();
    const env = { CLAUDE_PROJECT_DIR: dir };
    const pre = (n: number) => ({
      ...BEFORE.claude(dir),
      tool_input: { command: ['ls src', 'git status', 'cat README.md'][n - 1] },
      tool_use_id: `toolu_${n}`,
    });
    const post = (n: number) => ({
      ...pre(n),
      hook_event_name: 'PostToolUse',
      tool_response: { stdout: `${n}`, stderr: '', interrupted: false },
    });
    for (const event of [pre(1), pre(2), post(2), post(1), pre(3), post(3)])
      expect((await hookCall(dir, 'claude', event, env)).code).toBe(0);
    expect((await status(dir)).summary).toMatch(/^running, 3 tool calls ran/);
  });
});

describe('claude: the status line and scan of a killed session', () => {
  it('say what status says', async () => {
    if (process.platform !== 'linux') return;
    const dir = project();
    await kill(await startAgent('claude', dir));
    const { summary } = await status(dir);
    let line = '';
    const input = JSON.stringify({ session_id: 's1', cwd: dir, workspace: { project_dir: dir } });
    expect(await statuslineMain(Readable.from([input]), (text) => (line += text), {})).toBe(0);
    expect(line.trim()).toBe(`loopguard: ${summary}`);
    // Claude Code's transcript of the session: the call and its result
    const file = claudeTranscript(dir, AGENTS.claude.call.tool_input, true);
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: dir } });
    expect(await runCli(['scan', file, '--json', '--no-cache'], io), io.err()).toBe(EXIT_CODES.ok);
    const [session] = (JSON.parse(io.out()) as ScanReport).sessions;
    expect(session?.record?.summary).toBe(summary);
    expect(session?.record?.verdict).toBe('clean');
  });
});

describe('trust49: a second CLI process on the same session (the model runs `claude -p --resume <its id>`)', () => {
  it('does not make the session read ended once that process exits while the first runs on', async () => {
    if (process.platform !== 'linux') return;
    const dir = project();
    const agent = await startAgent('claude', dir, { calls: 1 });
    // the model's child CLI: the same session's events, from another process, which then exits
    const child = await startAgent('claude', dir, { calls: 1, first: 2 });
    await kill(child);
    expect(recordedPid(dir)).toBe(agent.pid);
    expect(await status(dir)).toMatchObject({ verdict: 'running', running: 1 });
    expect(await dashboardRunning(dir)).toBe(1);
    await kill(agent);
  });

  it('still follows a session resumed in a new process once the first is gone', async () => {
    if (process.platform !== 'linux') return;
    const dir = project();
    await kill(await startAgent('claude', dir, { calls: 1 }));
    const resumed = await startAgent('claude', dir, { calls: 1, first: 2 });
    expect(recordedPid(dir)).toBe(resumed.pid);
    expect(await status(dir)).toMatchObject({ verdict: 'running', running: 1 });
    await kill(resumed);
    expect(await status(dir)).toMatchObject({ verdict: 'clean', running: 0 });
  });
});

describe('trust50: a second agent process on a session while its own runs (`claude -p --resume <id>`, `--session-id <id>`)', () => {
  it('is not that session: its calls are neither judged nor counted there, it is ended, and its end does not end the session', async () => {
    if (process.platform !== 'linux') return;
    const dir = project();
    const agent = await startAgent('claude', dir, { calls: 1 });
    const replies = join(dir, 'replies.json');
    // the model's child CLI under the session's id: four identical failing calls, then its end
    const failing = (n: number) => ({
      session_id: 's1',
      cwd: dir,
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'cat missing.txt' },
      tool_use_id: `toolu_child_${n}`,
      error: 'Exit code 1\ncat: missing.txt: No such file or directory',
    });
    const end = { session_id: 's1', cwd: dir, hook_event_name: 'SessionEnd', reason: 'other' };
    await startAgent('claude', dir, { calls: 0, more: [...[1, 2, 3, 4].map(failing), end], replies });
    const answers = JSON.parse(readFileSync(replies, 'utf8')) as string[];
    for (const answer of answers.slice(0, 4)) {
      expect(JSON.parse(answer)).toMatchObject({ continue: false });
      expect(answer).toContain('already running in another process');
    }
    expect(answers[4]).toBe('');
    expect(recordedPid(dir)).toBe(agent.pid);
    expect(await status(dir)).toMatchObject({ verdict: 'running', running: 1 });
    const db = openLoopGuardDatabase(database(dir), { readonly: true });
    try {
      expect(db.db.prepare('SELECT tool_calls, stops FROM hook_sessions').get()).toEqual({
        tool_calls: 1,
        stops: 0,
      });
    } finally {
      db.close();
    }
    await kill(agent);
  });
});
