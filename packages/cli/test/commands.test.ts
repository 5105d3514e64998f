import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLoopGuardDatabase, SqliteRunStore } from '@loopguard/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGV_TOKEN_WARNING } from '../src/commands/serve.js';
import { runDemo } from '../src/demo/runDemo.js';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo, dashboardAccess } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'loopguard-cli-'));
const db = '.loopguard/demo.db';

let demoOutput = '';

beforeAll(async () => {
  // a terminal of 80 columns: the sessions at the end as `status` lays them out there (qa48)
  const io = bufferedIo({ cwd, columns: 80 });
  expect(await runCli(['demo'], io)).toBe(EXIT_CODES.ok);
  demoOutput = io.out();
  writeFileSync(join(cwd, 'notes.txt'), 'these are not SQLite pages '.repeat(200));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferedIo({ cwd });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

function expectOneLineError(result: { code: number; out: string; err: string }, message: string): void {
  expect(result.code).toBe(EXIT_CODES.usage);
  expect(result.err).toContain(message);
  expect(result.err.trim().split('\n')[0]).toContain(message);
  expect(result.err).not.toMatch(/\n\s+at /);
}

describe('loopguard demo', () => {
  it("lists the agent sessions as status does on the terminal's 80 columns, nothing past its edge (qa48)", () => {
    const sessions = demoOutput.slice(demoOutput.indexOf('The agent sessions ('));
    for (const line of sessions.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(sessions).toMatch(/\ncodex +demo-codex-session +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n/);
    expect(sessions).toContain(
      '  stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 call refused,\n  1 nudge',
    );
  });

  it("prints its scan as `scan` does on the terminal's 80 columns: each loop in a few lines, nothing past its edge (qa54)", () => {
    const from = demoOutput.indexOf('Scanned 1 file');
    const scanned = demoOutput.slice(from, demoOutput.indexOf('Try it on your own sessions', from));
    const table = scanned.slice(scanned.indexOf('\n\n') + 2, scanned.indexOf('Files and tool calls'));
    expect(table.trim()).not.toBe('');
    for (const line of table.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(table).not.toContain(' | ');
    expect(table).toMatch(/^ {3}claude +\S+ +\d{4}-\d\d-\d\d\n/);
  });

  it('shows a Codex session nudged, then refused, through `loopguard hook codex`; its uninstall of loopguard refused', () => {
    const scenario = demoOutput.slice(demoOutput.indexOf('Codex guarded by `loopguard hook codex`'));
    expect(scenario).toContain('Call 1 Bash: npm test -> failed (exit code 1, read from the rollout)');
    // a call in a subfolder (its workdir) counts in the session's loop
    expect(scenario).toContain(
      "Call 2 Bash: npm test (workdir packages/web, recorded in the session's project) -> failed (exit code 1, read from the rollout)",
    );
    expect(scenario).toMatch(
      /Call 3 Bash: npm test -> NUDGE \(a developer message in the model's next request\): "Loop detected \(same_error\)/,
    );
    expect(scenario).toContain(
      'Call 4 PreToolUse Bash: npm test -> REFUSED, never runs; the model reads "Command blocked by PreToolUse hook: Stopped (same_error)',
    );
    expect(scenario).toContain(
      'Call 5 PreToolUse Bash: npm uninstall -g @loopguard/cli -> REFUSED (it would switch loopguard off), never runs; the model reads "Command blocked by PreToolUse hook: loopguard refused this call',
    );
    expect(scenario).toContain(
      'The hook recorded 3 entries (loop_nudge, call_refused, loop_stop) for the Codex session demo-codex-session',
    );
  });
});

describe('loopguard demo --db: a file the demo did not write (polish65)', () => {
  it("refuses a user's own database, or any file it did not write, in one line with exit code 2, deleting nothing", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-demo-db-'));
    try {
      mkdirSync(join(folder, '.loopguard', 'demo-files'), { recursive: true });
      writeFileSync(join(folder, '.loopguard', 'demo-files', 'mine.txt'), 'a file of the user');
      const state = join(folder, '.loopguard', 'state.db');
      const database = openLoopGuardDatabase(state, { clock: { now: () => 1_000 } });
      database.stateMachine.upsertTask({ id: 'T1', title: 'recorded work', status: 'in_progress' });
      const before = readdirSync(join(folder, '.loopguard')).sort();
      const io = bufferedIo({ cwd: folder });
      expectOneLineError(
        { code: await runCli(['demo', '--db', '.loopguard/state.db'], io), out: io.out(), err: io.err() },
        '--db .loopguard/state.db: holds data the demo did not write',
      );
      expect(io.out()).toBe('');
      // the -wal and -shm of the open database too
      expect(readdirSync(join(folder, '.loopguard')).sort()).toEqual(before);
      database.close();
      // closed, its -wal and -shm gone: the check opens no SQLite connection that would make them again
      expectOneLineError(
        await runCli(['demo', '--db', '.loopguard/state.db'], io).then((code) => ({
          code,
          out: '',
          err: io.err(),
        })),
        '--db .loopguard/state.db: holds data the demo did not write',
      );
      expect(readdirSync(join(folder, '.loopguard')).sort()).toEqual(['demo-files', 'state.db']);
      const kept = openLoopGuardDatabase(state, { readonly: true });
      expect(kept.stateMachine.getTask('T1')?.title).toBe('recorded work');
      kept.close();
      expect(readdirSync(join(folder, '.loopguard', 'demo-files'))).toEqual(['mine.txt']);
      // not a database at all: kept as it is
      writeFileSync(join(folder, 'notes.txt'), 'my notes');
      const notes = bufferedIo({ cwd: folder });
      expectOneLineError(
        { code: await runCli(['demo', '--db', 'notes.txt'], notes), out: notes.out(), err: notes.err() },
        '--db notes.txt: holds data the demo did not write',
      );
      expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('my notes');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("runs again on its own database (the previous demo's), and on a new or empty file", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-demo-db-'));
    try {
      writeFileSync(join(folder, 'empty.db'), '');
      for (const file of ['fresh.db', 'fresh.db', 'empty.db']) {
        const io = bufferedIo({ cwd: folder });
        await runDemo({ db: file, serve: false, port: 0, paceMs: 0, scenarios: [] }, io);
        expect(io.err()).toBe('');
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("runs again on an older loopguard's unmarked demo database at the demo's own default place (.loopguard/demo.db)", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-demo-db-'));
    try {
      const old = openLoopGuardDatabase(join(folder, '.loopguard', 'demo.db'), { createDirectory: true });
      old.stateMachine.upsertTask({ id: 'T1', title: 'an older demo', status: 'in_progress' });
      old.close();
      const io = bufferedIo({ cwd: folder });
      await runDemo({ db: '.loopguard/demo.db', serve: false, port: 0, paceMs: 0, scenarios: [] }, io);
      expect(io.err()).toBe('');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('loopguard demo --db: a folder that is not there (doors71)', () => {
  it('refuses a --db whose folder is missing or a file, in one line naming --db, exit 2, making nothing', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-demo-db-'));
    try {
      writeFileSync(join(folder, 'notes.txt'), 'my notes');
      for (const [db, missing] of [
        ['x/y.db', 'x'],
        ['x/.loopguard/demo.db', 'x'],
        ['notes.txt/demo.db', 'notes.txt'],
        ['notes.txt/.loopguard/demo.db', 'notes.txt'],
      ] as const) {
        const io = bufferedIo({ cwd: folder });
        expectOneLineError(
          { code: await runCli(['demo', '--db', db], io), out: io.out(), err: io.err() },
          `--db ${db}: no such folder ${join(folder, missing)}`,
        );
        expect(io.err().trim().split('\n')).toHaveLength(1);
        expect(readdirSync(folder)).toEqual(['notes.txt']);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('loopguard demo --db: a demo-files folder the demo did not make (polish66)', () => {
  it('refuses a new --db beside a demo-files folder of the user, in one line with exit code 2, deleting nothing', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-demo-files-'));
    try {
      mkdirSync(join(folder, 'demo-files'));
      writeFileSync(join(folder, 'demo-files', 'mine.txt'), 'a file of the user');
      const io = bufferedIo({ cwd: folder });
      expectOneLineError(
        { code: await runCli(['demo', '--db', 'new.db'], io), out: io.out(), err: io.err() },
        '--db new.db: the folder demo-files beside it holds files the demo did not make',
      );
      expect(readdirSync(folder).sort()).toEqual(['demo-files']);
      expect(readdirSync(join(folder, 'demo-files'))).toEqual(['mine.txt']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('runs again beside the demo-files it made, and in an empty one, which it then owns', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-demo-files-'));
    try {
      mkdirSync(join(folder, 'empty', 'demo-files'), { recursive: true });
      for (const db of ['fresh.db', 'fresh.db', 'empty/demo.db', 'empty/demo.db']) {
        const io = bufferedIo({ cwd: folder });
        await runDemo({ db, serve: false, port: 0, paceMs: 0, scenarios: [] }, io);
        expect(io.err(), db).toBe('');
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('loopguard demo: one clock (sessions60)', () => {
  it("records what the hooks did at the demo's simulated time: each entry detected when written, each session active by then", async () => {
    const database = openLoopGuardDatabase(join(cwd, db), { readonly: true });
    const entries = database.db
      .prepare("SELECT topic, timestamp, metadata FROM context_entries WHERE metadata LIKE '%detectedAt%'")
      .all() as { topic: string; timestamp: number; metadata: string }[];
    database.close();
    expect(new Set(entries.map((e) => e.topic))).toEqual(
      new Set(['loop_nudge', 'loop_stop', 'spend_warning', 'spend_stop']),
    );
    for (const e of entries) expect(JSON.parse(e.metadata).detectedAt, e.topic).toBe(e.timestamp);
    const newest = Math.max(...entries.map((e) => e.timestamp));
    const { out } = await run(['status', '--db', db, '--json']);
    const sessions = JSON.parse(out).sessions.sessions as { sessionId: string; lastActive: number }[];
    for (const s of sessions) expect(s.lastActive, s.sessionId).toBeLessThanOrEqual(newest);
  });
});

describe('loopguard demo: what the user reads (qa39)', () => {
  it('speaks of tool calls and model calls, never of steps', () => {
    expect(demoOutput).not.toMatch(/\bsteps?\b/i);
  });
});

describe('loopguard demo: Claude Code through `loopguard hook claude` (qa39)', () => {
  it("replays the recorded session as it ran: the Read is no call against loopguard's state, the stop falls at call 5", async () => {
    const scenario = demoOutput.slice(
      demoOutput.indexOf('Claude Code guarded by `loopguard hook claude`'),
      demoOutput.indexOf('Codex guarded by `loopguard hook codex`'),
    );
    expect(scenario).toContain('Event 3 PreToolUse Read: sum.js -> runs');
    expect(scenario).not.toContain('""');
    const { out } = await run(['status', '--db', db]);
    expect(out).toContain('stopped by loopguard at call 5 (same error), 4 tool calls ran, 1 nudge');
    // sess68: the message the agent got, quoted by --session, says its kind in words; --json keeps it as stored
    const id = /^claude +\| ([0-9a-f-]{36}) /m.exec(out)?.[1] ?? '';
    const session = await run(['status', '--db', db, '--session', id]);
    expect(session.out).toContain('stop at call 5: Stopped (same error): call 5 was refused before it ran');
    expect(session.out).toContain('nudge at call 4: Loop detected (same error): ');
    expect(session.out).not.toContain('same_error');
    const json = JSON.parse((await run(['status', '--db', db, '--session', id, '--json'])).out);
    expect(json.entries.map((e: { content: string }) => e.content.split(':')[0])).toEqual([
      'Loop detected (same_error)',
      'Stopped (same_error)',
    ]);
  });
});

describe('loopguard status', () => {
  it('prints the tasks with attempts and their newest recovery', async () => {
    const { code, out } = await run(['status', '--db', db]);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain(`database: ${join(cwd, db)}`);
    expect(out).toContain('tasks (orchestrator): 10');
    // sess68: the newest recovery in words, as the entries say it (the topic stays in --json)
    expect(out).toMatch(/T3\.4\.3\s+\| blocked\s+\| 0\s+\| -\s+\| escalate *$/m);
    expect(out).toMatch(/T3\.4\.2\s+\| done\s+\| 0\s+\| -\s+\| force next *$/m);
    expect(out).not.toMatch(/loop_escalation|loop_recovery/);
    expect(out).toMatch(/T9\.1\.1\s+\| in_progress \| 6\s+\| \d{4}-/);
  });

  it('a --session with no id is one line naming it, not a session called --json (polish61)', async () => {
    for (const args of [
      ['--session', '--json'],
      ['--session', '--verdict', 'stopped'],
    ]) {
      const result = await run(['status', '--db', db, ...args]);
      expectOneLineError(result, `error: option '--session <id>' argument '${args[1]}' is invalid.`);
      expect(result.err).toContain(`the session's id is missing`);
      expect(result.out).toBe('');
    }
  });

  it("names each demo run's project as a folder, never '.' (polish62: the dashboard's screenshot showed '.')", async () => {
    const result = await run(['status', '--db', db, '--json']);
    expect(result.code, result.err).toBe(0);
    const runs = (
      JSON.parse(result.out) as { sessions: { sessions: { agent: string; projectDir: string }[] } }
    ).sessions.sessions.filter((s) => s.agent === 'run');
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) expect(r.projectDir).toBe(join(cwd, '.loopguard', 'demo-files'));
  });

  it('an empty --session is a usage error naming it, not "no such session" (polish62)', async () => {
    for (const id of ['', '  ']) {
      const result = await run(['status', '--db', db, '--session', id]);
      expectOneLineError(result, `error: option '--session <id>' argument '${id}' is invalid.`);
      expect(result.err).toContain(`the session's id is empty`);
      expect(result.out).toBe('');
    }
    const task = await run(['recoveries', '--db', db, '--task', '']);
    expectOneLineError(task, `error: option '--task <id>' argument '' is invalid.`);
    expect(task.err).toContain(`the task's id is empty`);
  });

  it('prints the newest loopguard run with the state its store reports, interrupted included', async () => {
    const path = join(cwd, 'runs.db');
    const database = openLoopGuardDatabase(path);
    const runs = new SqliteRunStore({ db: database.db });
    runs.createRun({ id: 'r1', command: ['agent'], options: {}, cwd });
    runs.updateRun('r1', {
      status: 'interrupted',
      breakerState: 'OPEN',
      reason: 'the owner process is gone',
    });
    database.close();
    const { code, out } = await run(['status', '--db', 'runs.db']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain('newest run r1 interrupted, breaker: OPEN');
    expect(out).toMatch(/run\s+\| r1\s+\|/);
    expect(out).not.toContain('tasks (orchestrator)');
    const json = JSON.parse((await run(['status', '--db', 'runs.db', '--json'])).out);
    expect(json.breaker).toMatchObject({ runId: 'r1', runStatus: 'interrupted', state: 'OPEN' });
  });

  it("story56: says a run at its limit in words, in status's header and in the runs list", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-story56-'));
    mkdirSync(join(dir, '.loopguard'));
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    const runs = new SqliteRunStore({ db: database.db });
    runs.createRun({ id: 'r1', command: ['agent'], options: {}, cwd: dir });
    runs.updateRun('r1', { status: 'budget_spent', reason: 'Iteration 3 exceeds maximum of 2.' });
    database.close();
    const inDir = async (args: string[]) => {
      const io = bufferedIo({ cwd: dir });
      await runCli(args, io);
      return io.out();
    };
    const status = await inDir(['status']);
    expect(status).toContain('newest run r1 limit reached, breaker: CLOSED');
    expect(status).not.toContain('budget_spent');
    expect(await inDir(['runs'])).toMatch(/^r1\s+limit reached\s+0\s+CLOSED/m);
    expect(JSON.parse(await inDir(['runs', '--json']))).toMatchObject({ status: 'budget_spent' });
    rmSync(dir, { recursive: true });
  });

  it('prints the /status body with --json, paged with --limit and --cursor', async () => {
    const first = await run(['status', '--db', db, '--json', '--limit', '3']);
    const page = JSON.parse(first.out);
    expect(Object.keys(page)).toEqual(expect.arrayContaining(['running', 'tickCount', 'loopDetection']));
    expect(page.tasks.map((t: { id: string }) => t.id)).toEqual(['T10.1.1', 'T3.4.2', 'T3.4.3']);
    expect(page.page.total).toBe(10);
    const second = JSON.parse(
      (await run(['status', '--db', db, '--json', '--cursor', page.page.nextCursor])).out,
    );
    expect(second.tasks.map((t: { id: string }) => t.id)).toEqual([
      'T5.1.1',
      'T5.1.2',
      'T5.1.3',
      'T6.2.3',
      'T7.1.2',
      'T8.2.1',
      'T9.1.1',
    ]);
  });

  it('sessions57: names the database it found, not --db, when the user gave none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-found-'));
    mkdirSync(join(dir, '.git'));
    mkdirSync(join(dir, '.loopguard'));
    writeFileSync(join(dir, '.loopguard', 'state.db'), 'these are not SQLite pages '.repeat(200));
    for (const command of ['status', 'recoveries', 'serve']) {
      const io = bufferedIo({ cwd: dir, env: { HOME: dir } });
      const result = {
        code: await runCli([command, '--port', '0'].slice(0, command === 'serve' ? 3 : 1), io),
        out: io.out(),
        err: io.err(),
      };
      expectOneLineError(result, `loopguard: ${join(dir, '.loopguard', 'state.db')}: not a SQLite database`);
      expect(result.err).not.toContain('--db');
    }
    rmSync(dir, { recursive: true });
  });

  it('reports a missing file, a file that is not SQLite and a bad flag in one line with exit code 2', async () => {
    expectOneLineError(await run(['status', '--db', 'missing.db']), '--db missing.db: no such file');
    expectOneLineError(await run(['status', '--db', 'notes.txt']), '--db notes.txt: not a SQLite database');
    // a folder, the database's own among them: named as a folder, the file in it offered (sessions55)
    for (const command of ['status', 'recoveries'])
      expectOneLineError(
        await run([command, '--db', '.loopguard']),
        '--db .loopguard: a folder, not a database file (give the file: --db .loopguard/demo.db)',
      );
    mkdirSync(join(cwd, 'empty-folder'), { recursive: true });
    expectOneLineError(
      await run(['status', '--db', 'empty-folder']),
      '--db empty-folder: a folder, not a database file',
    );
    expect((await run(['status', '--db', 'empty-folder'])).err).not.toContain('give the file');
    expectOneLineError(
      await run(['status', '--db', db, '--limit', 'lots']),
      "option '--limit <n>' argument 'lots' is invalid",
    );
    expectOneLineError(
      await run(['status']),
      `no loopguard database in ${cwd} or above, nor in ~/.loopguard: no session guarded here yet (the hooks loopguard init installs write .loopguard/state.db at a session's first tool call); to read another store, give --db <file> or --postgres <url> (or serve.postgres in the config file); the demo wrote --db .loopguard/demo.db`,
    );
    expectOneLineError(
      await run(['status', '--db', db, '--cursor', 'nonsense']),
      '--cursor is not valid (pass the nextCursor of a previous page)',
    );
    expectOneLineError(
      await run(['status', '--db', db, '--postgres', 'postgres://127.0.0.1/x']),
      '--db and --postgres cannot be used together',
    );
  });
});

describe('loopguard recoveries', () => {
  it('lists recoveries newest first and filters by topic and task', async () => {
    const all = await run(['recoveries', '--db', db]);
    expect(all.code).toBe(EXIT_CODES.ok);
    const actions = [...all.out.matchAll(/\| (force next|unblock authority|escalate)\s+\|/g)].map(
      (m) => m[1],
    );
    expect(actions).toEqual([
      'escalate',
      'escalate',
      'force next',
      'escalate',
      'unblock authority',
      'force next',
    ]);
    const escalations = JSON.parse(
      (await run(['recoveries', '--db', db, '--topic', 'loop_escalation', '--json'])).out,
    );
    expect(escalations.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual([
      'T5.1.1',
      'T6.2.3',
      'T3.4.3',
    ]);
    expect(escalations.recoveries[0].metadata.evidence).toHaveLength(9);
    expect(escalations.recoveries[2].metadata.evidence).toHaveLength(3);
    const byTask = JSON.parse((await run(['recoveries', '--db', db, '--task', 'T3.4.2', '--json'])).out);
    expect(byTask.recoveries.map((r: { action: string }) => r.action)).toEqual(['force_next']);
    const future = JSON.parse((await run(['recoveries', '--db', db, '--since', '2999-01-01', '--json'])).out);
    expect(future.recoveries).toEqual([]);
  });

  it("qa64: the next page's command keeps the filters and the page's length", async () => {
    const first = await run(['recoveries', '--db', db, '--topic', 'loop_escalation', '--limit', '1']);
    const more = /^more: loopguard recoveries (.*)$/m.exec(first.out)?.[1] ?? '';
    expect(more).toMatch(/^--db \S+ --topic loop_escalation --limit 1 --cursor \S+$/);
    const next = await run(['recoveries', ...more.split(' ')]);
    expect(next.code, next.err).toBe(EXIT_CODES.ok);
    expect(
      [...next.out.matchAll(/\| (force next|unblock authority|escalate)\s+\|/g)].map((m) => m[1]),
    ).toEqual(['escalate']);
  });

  /** The values of the `index`-th column of the whole table of recoveries. */
  async function tableColumn(index: number): Promise<Set<string>> {
    const all = await run(['recoveries', '--db', db, '--limit', '1000']);
    expect(all.code, all.err).toBe(EXIT_CODES.ok);
    const cells = all.out
      .split('\n')
      .slice(3)
      .map((line) => line.split(' | ')[index]?.trim());
    return new Set(cells.filter((cell): cell is string => cell !== undefined && cell !== ''));
  }

  it("qa66: the action column says each action in words, as the dashboard's badges and status --session", async () => {
    const actions = await tableColumn(2);
    // the demo writes every kind: a task's recoveries, nudges and stops, spend entries, a refused call
    expect([...actions].sort()).toEqual(
      expect.arrayContaining(['call refused', 'escalate', 'force next', 'spend stop', 'unblock authority']),
    );
    for (const action of actions) expect(action).not.toContain('_');
    // sess68: the loop type and the quoted message in words too, as status --session and the dashboard
    const all = await run(['recoveries', '--db', db, '--limit', '1000']);
    const rows = all.out.split('\n').slice(3);
    expect(rows.some((row) => / \| same error +\| call 4 +\| Stopped \(same error\): /.test(row))).toBe(true);
    for (const row of rows) expect(row).not.toMatch(/same_error|near_duplicate/);
    // --json keeps the stored action (a script's field)
    const json = JSON.parse(
      (await run(['recoveries', '--db', db, '--topic', 'loop_recovery', '--json'])).out,
    );
    expect(json.recoveries[0].action).toBe('force_next');
  });

  it("qa68: the loop type column says a loop's kind in words, as status, the dashboard and scan", async () => {
    const kinds = await tableColumn(4);
    // a session's loop as the step detector's words say it; a task's loop with spaces (the dashboard's entries)
    expect([...kinds]).toEqual(
      expect.arrayContaining(['same error', 'blocked task spin', 'cross task cycle']),
    );
    for (const kind of kinds) expect(kind).not.toContain('_');
    // --json keeps the code (a script's field)
    const json = JSON.parse((await run(['recoveries', '--db', db, '--topic', 'loop_stop', '--json'])).out);
    expect(json.recoveries.map((r: { loopType: string }) => r.loopType)).toContain('same_error');
  });

  it('rejects bad filters in one line with exit code 2', async () => {
    // a time's line names the forms `--help` offers, a day among them (polish61: the endpoint's two alone)
    const forms =
      'epoch ms, an ISO time (2026-11-29T18:00, local unless it names a zone) or a day (YYYY-MM-DD or YYYYMMDD, local)';
    for (const [flag, value, message] of [
      [
        '--topic',
        'oops',
        '--topic must be one of loop_recovery, unblock_authority, loop_escalation, loop_nudge, loop_stop, spend_warning, spend_stop, call_refused, got "oops"',
      ],
      ['--since', 'last week', `--since must be ${forms}, got "last week"`],
      ['--until', 'yesterday', `--until must be ${forms}, got "yesterday"`],
      [
        '--task',
        '--json',
        "error: option '--task <id>' argument '--json' is invalid. the task's id is missing",
      ],
      ['--limit', '0', '--limit must be an integer from 1 to 1000'],
    ] as const)
      expectOneLineError(await run(['recoveries', '--db', db, flag, value]), message);
  });
});

/**
 * Starts `loopguard serve` and resolves with the child, the address it prints (`printed`, with its
 * token), the server's root and the token as a request's header.
 */
function startServe(
  args: string[],
  dir = cwd,
): Promise<{ child: ChildProcess; url: string; printed: string; auth: { headers: Record<string, string> } }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: dir });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const printed = /loopguard dashboard: (http:\S+)/.exec(out)?.[1];
      if (printed) resolve({ child, printed, ...dashboardAccess(printed) });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('loopguard serve', () => {
  it('serves the database until SIGTERM, then exits 0', async () => {
    const { child, url, auth } = await startServe(['--db', db, '--port', '0']);
    const exited = exitOf(child);
    const status = (await (await fetch(new URL('/status', url), auth)).json()) as { page: { total: number } };
    expect(status.page.total).toBe(10);
    expect((await fetch(url, auth)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('on loopback too, another local user without the token it printed reads nothing (issue 38)', async () => {
    const { child, url, printed } = await startServe(['--db', db, '--port', '0']);
    const exited = exitOf(child);
    try {
      for (const path of [
        '/',
        '/status',
        '/sessions',
        '/sessions/entries',
        '/recoveries',
        '/metrics',
        '/events',
      ])
        expect((await fetch(new URL(path, url))).status, path).toBe(401);
      // the address it printed opens the dashboard (the token goes into a cookie)
      const opened = await fetch(printed, { redirect: 'manual' });
      expect(opened.status).toBe(303);
      expect(opened.headers.get('set-cookie')).toMatch(/^loopguard_token=/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it("says the project's off switch on the dashboard as status says it, and when it is switched back on", async () => {
    const project = mkdtempSync(join(cwd, 'off-'));
    mkdirSync(join(project, 'src'));
    openLoopGuardDatabase(join(project, '.loopguard', 'state.db'), { createDirectory: true }).close();
    const config = join(project, 'loopguard.config.json');
    writeFileSync(config, JSON.stringify({ hook: { enabled: false } }));
    const { child, url, auth } = await startServe(['--port', '0'], join(project, 'src'));
    const exited = exitOf(child);
    const hooksOff = async () =>
      ((await (await fetch(new URL('/status', url), auth)).json()) as { hooksOff?: string }).hooksOff;
    try {
      const words = await hooksOff();
      expect(words).toBe(
        'off in this project (hook.enabled: false in loopguard.config.json): loopguard guards no session here',
      );
      const status = await run(['status', '--db', join(project, '.loopguard', 'state.db')]);
      expect(status.out).toContain(`\nhooks: ${words}\n`); // the same words
      expect(
        JSON.parse((await run(['status', '--json', '--db', join(project, '.loopguard', 'state.db')])).out)
          .hooksOff,
      ).toBe(words);
      writeFileSync(config, JSON.stringify({ hook: { enabled: true } }));
      // the store did not change: the answer cached for a second expires, nothing else is waited for
      while ((await hooksOff()) !== undefined) await new Promise((done) => setTimeout(done, 100));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it("says the project's own exemptions and thresholds on the dashboard as status says them (trust52)", async () => {
    const project = mkdtempSync(join(cwd, 'exempt-'));
    openLoopGuardDatabase(join(project, '.loopguard', 'state.db'), { createDirectory: true }).close();
    const config = join(project, 'loopguard.config.json');
    writeFileSync(config, JSON.stringify({ hook: { exemptTools: ['Edit'] } }));
    const { child, url, auth } = await startServe(['--port', '0'], project);
    const exited = exitOf(child);
    try {
      const body = (await (await fetch(new URL('/status', url), auth)).json()) as {
        hooksConfigured?: string;
      };
      const words = `settings of this project (${config}): the tool "Edit" is exempt: loopguard judges none of its calls`;
      expect(body.hooksConfigured).toBe(words);
      expect((await run(['status', '--db', join(project, '.loopguard', 'state.db')])).out).toContain(
        `\nhooks: ${words}\n`,
      );
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('warns that a --token given on the command line is in the process list, and not for LOOPGUARD_TOKEN (trust52)', async () => {
    const token = 'a-token-of-the-user-52';
    const serveWith = (args: string[], env: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0', ...args], {
          cwd,
          env: { ...process.env, ...env },
        });
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
        });
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('loopguard dashboard:')) child.kill('SIGTERM');
        });
        child.on('exit', () => resolve(err));
        child.on('error', reject);
      });
    expect(await serveWith(['--token', token], {})).toBe(`${ARGV_TOKEN_WARNING}`);
    expect(await serveWith([], { LOOPGUARD_TOKEN: token })).toBe('');
  });

  it('reports a port in use and a public host without a token in one line with exit code 2', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as { port: number }).port;
    try {
      expectOneLineError(
        await run(['serve', '--db', db, '--port', String(port)]),
        `--port ${port}: the port is in use`,
      );
    } finally {
      blocker.close();
    }
    expectOneLineError(
      await run(['serve', '--db', db, '--host', '0.0.0.0', '--port', '0']),
      'host 0.0.0.0 is not loopback: a token of at least 16 characters is required',
    );
    expectOneLineError(
      await run(['serve', '--db', db, '--token', '', '--port', '0']),
      'token must not be empty',
    );
    expectOneLineError(
      await run(['serve', '--db', db, '--port', '70000']),
      "option '--port <port>' argument '70000' is invalid",
    );
  });
});
