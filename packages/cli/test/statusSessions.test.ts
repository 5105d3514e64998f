import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@loopguard/core';
import {
  openLoopGuardDatabase,
  SCHEMA_VERSION,
  SqliteHookSessionStore,
  SqliteSpendStore,
} from '@loopguard/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'loopguard-status-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const state = {
  snapshot: '{}',
  lastResults: '[]',
  steps: 8,
  toolCalls: 4,
  parentSessionId: null,
  agentType: null,
  nudges: 1,
  stops: 0,
  enabled: true,
};

/** A project whose hooks wrote three sessions an hour ago: stopped at call 4, stopped on spend, nudged. */
function hooksOnlyProject(name: string): string {
  const project = join(root, name);
  mkdirSync(join(project, 'src'), { recursive: true });
  const clock = new ManualClock(Date.now() - 3_600_000);
  const database = openLoopGuardDatabase(join(project, '.loopguard', 'state.db'), {
    clock,
    createDirectory: true,
  });
  const hooks = new SqliteHookSessionStore({ db: database.db, clock });
  const write = (agent: 'claude' | 'gemini', sessionId: string, extra: Partial<typeof state>) =>
    hooks.update({ agent, sessionId, projectDir: project }, () => ({
      next: { ...state, ...extra },
      result: null,
    }));
  write('claude', 'looped', { stops: 1 });
  database.stateMachine.addContextEntry({
    entryType: 'decision',
    topic: 'loop_stop',
    content: 'You ran the same failing command 4 times.',
    relatedTasks: ['claude:looped'],
    metadata: { loopType: 'repeated_action', toolCall: 4 },
  });
  clock.advance(1_000);
  write('gemini', 'spent', { nudges: 0 });
  database.stateMachine.addContextEntry({
    entryType: 'decision',
    topic: 'spend_stop',
    content: 'this session reached its budget',
    relatedTasks: ['gemini:spent'],
    metadata: { reason: 'cap' },
  });
  clock.advance(1_000);
  write('claude', 'nudged', {});
  database.close();
  return project;
}

async function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = bufferedIo({ cwd, env: { NO_COLOR: '1', ...env } });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** A project folder under the test's root with its `.loopguard/state.db`, an hour ago by its clock. */
function projectDatabase(name: string) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const clock = new ManualClock(Date.now() - 3_600_000);
  const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), {
    clock,
    createDirectory: true,
  });
  return { dir, clock, database, hooks: new SqliteHookSessionStore({ db: database.db, clock }) };
}

describe('loopguard status: the sessions every door wrote', () => {
  const project = hooksOnlyProject('app');

  it("finds the project's database from a folder below it, says which, and lists its sessions newest first", async () => {
    const { code, out } = await run(join(project, 'src'), ['status']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain(`database: ${join(project, '.loopguard', 'state.db')}`);
    expect(out).toContain('sessions: 3 (1 nudged, 1 stopped, 1 stopped on spend)');
    const order = ['nudged', 'spent', 'looped'].map((id) => out.indexOf(`| ${id} `));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(out).toContain('stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge');
    expect(out).toContain('stopped on spend (budget reached)');
    expect(out).not.toMatch(/tasks|attempts recorded/);
  });

  it('says of a session the user switched off, and of its subagent, that it is off, in status and status --session (codex58)', async () => {
    const off = projectDatabase('switched-off');
    const key = { agent: 'codex' as const, projectDir: off.dir };
    off.hooks.update({ ...key, sessionId: 'main' }, () => ({ next: { ...state, nudges: 0 }, result: null }));
    off.hooks.update({ ...key, sessionId: 'sub' }, () => ({
      next: { ...state, nudges: 0, toolCalls: 2, parentSessionId: 'main', agentType: 'default' },
      result: null,
    }));
    off.database.db.prepare("UPDATE hook_sessions SET enabled = 0 WHERE session_id = 'main'").run();
    off.database.close();
    const list = await run(off.dir, ['status', '--json']);
    const sessions = JSON.parse(list.out).sessions.sessions as Array<Record<string, unknown>>;
    expect(sessions.map((s) => [s.sessionId, s.switchedOff, s.summary])).toEqual([
      ['sub', true, 'off for this session (switched off), no loop found, 2 tool calls ran'],
      ['main', true, 'off for this session (switched off), no loop found, 4 tool calls ran'],
    ]);
    const one = await run(off.dir, ['status', '--session', 'main']);
    expect(one.out).toContain('off for this session (switched off), no loop found, 4 tool calls ran');
  });

  it("says its times in the user's time zone, as the dashboard and scan do, naming the zone (qa47)", async () => {
    const zoned = projectDatabase('zoned');
    // 19:45 in Los Angeles on 29 November is 03:45 UTC on the 30th: the day differs
    zoned.clock.set(Date.parse('2026-11-30T03:45:32Z'));
    zoned.hooks.update({ agent: 'claude', sessionId: 'late', projectDir: zoned.dir }, () => ({
      next: { ...state, stops: 1 },
      result: null,
    }));
    zoned.database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'Stopped (same_error): the same action failed 4 times.',
      relatedTasks: ['claude:late'],
      metadata: { loopType: 'same_error', toolCall: 4 },
    });
    zoned.database.close();
    const before = process.env.TZ;
    try {
      process.env.TZ = 'America/Los_Angeles';
      const list = await run(zoned.dir, ['status']);
      expect(list.out).toContain('last active (America/Los_Angeles)');
      expect(list.out).toMatch(/\| 2026-11-29 19:45:32 +\|/);
      const one = await run(zoned.dir, ['status', '--session', 'late']);
      expect(one.out).toContain('  2026-11-29 19:45:32  stop at call 4: ');
      // `recoveries` says the same time by the same rule, naming the zone (sessions55)
      const entries = await run(zoned.dir, ['recoveries']);
      expect(entries.out).toContain('time (America/Los_Angeles)');
      expect(entries.out).toMatch(/\| 2026-11-29 19:45:32 +\| stop /);
      // sessions57: a day alone is that day in the same zone, both ends included as scan's days
      // (it was UTC's midnight: the 30th held it, and --until the 29th left it out)
      const on = async (flag: string, day: string) =>
        (await run(zoned.dir, ['recoveries', flag, day, '--json'])).out.includes('claude:late');
      expect(await on('--since', '2026-11-29')).toBe(true);
      expect(await on('--since', '2026-11-30')).toBe(false);
      expect(await on('--until', '2026-11-29')).toBe(true);
      expect(await on('--until', '20261128')).toBe(false);
      expect(await on('--since', '20261130')).toBe(false);
      // a time says its zone or is local, as before
      expect(await on('--since', '2026-11-29T19:45:00')).toBe(true);
      expect(await on('--since', '2026-11-30T03:46:00Z')).toBe(false);
      process.env.TZ = 'Asia/Kolkata';
      expect((await run(zoned.dir, ['status'])).out).toMatch(/\| 2026-11-30 09:15:32 +\|/);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  it('fits a terminal of 80 columns: each session in two lines, nothing cut; a pipe still gets the table (qa47)', async () => {
    const narrow = async (args: string[]) => {
      const io = bufferedIo({
        cwd: project,
        env: { NO_COLOR: '1' },
        isTTY: true,
        stderrIsTTY: true,
        columns: 80,
      });
      const code = await runCli(args, io);
      return { code, out: io.out(), err: io.err() };
    };
    const { code, out } = await narrow(['status']);
    expect(code).toBe(EXIT_CODES.ok);
    for (const line of out.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    const lines = out.split('\n');
    const at = lines.findIndex((line) => /^claude +looped +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(line));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('  stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge');
    expect(out).not.toContain(' | ');
    const one = await narrow(['status', '--session', 'looped']);
    for (const line of one.out.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(one.out.replace(/\n {2}/g, ' ')).toContain(
      'stop at call 4: You ran the same failing command 4 times.',
    );
    // sess70: the sentence on stderr (exit 10) fits too, broken between words (it ran past the
    // edge and the terminal cut `1 nudge` as `1 nu` / `dge`); piped, it stays one line
    expect(one.code).toBe(EXIT_CODES.sessionStopped);
    for (const line of one.err.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(one.err.replace(/\n {2}/g, ' ')).toBe(
      'loopguard: session looped: stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge\n',
    );
    expect((await run(project, ['status', '--session', 'looped'])).err.split('\n')).toHaveLength(2);
    // piped (no width): the table, one line a session, as before
    expect((await run(project, ['status'])).out).toContain('| looped ');
  });

  it('at 80 columns, sessions of several projects with long ids: no line past 80, the heading over its columns, in any time zone (qa48)', async () => {
    const mixed = projectDatabase('mixed');
    const other = join(root, 'a-folder-with-a-long-name', 'pkg');
    const id = 'f0cefd91-050c-42c6-b273-ebf25ed1819b';
    mixed.hooks.update({ agent: 'claude', sessionId: id, projectDir: other }, () => ({
      next: state,
      result: null,
    }));
    mixed.hooks.update({ agent: 'codex', sessionId: 'c1', projectDir: mixed.dir }, () => ({
      next: state,
      result: null,
    }));
    mixed.database.close();
    const before = process.env.TZ;
    try {
      process.env.TZ = 'America/Los_Angeles';
      const io = bufferedIo({ cwd: mixed.dir, env: { NO_COLOR: '1' }, isTTY: true, columns: 80 });
      expect(await runCli(['status'], io)).toBe(EXIT_CODES.ok);
      const lines = io.out().split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
      const heading = lines.find((line) => line.startsWith('agent '));
      const row = lines.find((line) => line.startsWith('claude '));
      // each session's time starts under the heading's, and so does the column after it
      expect(heading?.indexOf('last active')).toBe(row?.indexOf('2026-') ?? -2);
      expect(lines[lines.indexOf(row ?? '') + 1]).toBe(`  ${other}`);
      expect(io.out()).toContain(`  ${mixed.dir}\n`);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  it("at 80 columns, a Codex subagent's run: no line past 80, whose subagent it is on a line of its own (qa54)", async () => {
    const codex = projectDatabase('subagent');
    const main = '01a22c59-4655-7321-88d3-e484008e01e7';
    const sub = '01a22c59-4796-7482-87fd-cf981f72f326';
    codex.hooks.update({ agent: 'codex', sessionId: main, projectDir: codex.dir }, () => ({
      next: { ...state, nudges: 0 },
      result: null,
    }));
    codex.clock.advance(1_000);
    codex.hooks.update({ agent: 'codex', sessionId: sub, projectDir: codex.dir }, () => ({
      next: { ...state, parentSessionId: main, agentType: 'default' },
      result: null,
    }));
    codex.database.close();
    const io = bufferedIo({ cwd: codex.dir, env: { NO_COLOR: '1' }, isTTY: true, columns: 80 });
    expect(await runCli(['status'], io)).toBe(EXIT_CODES.ok);
    const lines = io.out().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const heading = lines.find((line) => line.startsWith('agent '));
    const rows = lines.filter((line) => line.startsWith('codex '));
    expect(rows).toHaveLength(2);
    // each session's time under the heading's
    for (const row of rows) expect(row.search(/\d{4}-\d\d-\d\d /), row).toBe(heading?.indexOf('last active'));
    expect(lines[lines.findIndex((line) => line.includes(sub)) + 1]).toBe(`  subagent of ${main}`);
  });

  it('says what to do with a database an earlier loopguard wrote, in one line: the next guarded call brings it up to date (qa54)', async () => {
    const older = projectDatabase('older');
    older.hooks.update({ agent: 'claude', sessionId: 's1', projectDir: older.dir }, () => ({
      next: state,
      result: null,
    }));
    older.database.db.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    older.database.close();
    const before = await run(older.dir, ['status']);
    expect(before.code).toBe(EXIT_CODES.usage);
    expect(before.err.trim().split('\n')).toEqual([
      `loopguard: ${join(older.dir, '.loopguard', 'state.db')}: written by an earlier loopguard (schema version ${SCHEMA_VERSION - 1}; this one reads ${SCHEMA_VERSION}): the next tool call loopguard's hooks guard in this project, or the next loopguard run here, brings it up to date`,
    ]);
    // what a hook's open does: the database migrated, status reads it
    openLoopGuardDatabase(join(older.dir, '.loopguard', 'state.db')).close();
    expect((await run(older.dir, ['status'])).out).toContain('| s1 ');
  });

  it("runs says of a database an earlier loopguard wrote what status says, not SQLite's advice to open it writable (review56)", async () => {
    const older = projectDatabase('older-runs');
    older.database.db.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    older.database.close();
    const path = join(older.dir, '.loopguard', 'state.db');
    const before = await run(older.dir, ['runs']);
    expect(before.code).toBe(EXIT_CODES.internalError);
    expect(before.err.trim().split('\n')).toEqual([
      `loopguard: ${path}: written by an earlier loopguard (schema version ${SCHEMA_VERSION - 1}; this one reads ${SCHEMA_VERSION}): the next tool call loopguard's hooks guard in this project, or the next loopguard run here, brings it up to date`,
    ]);
    openLoopGuardDatabase(path).close();
    expect((await run(older.dir, ['runs'])).out).toBe('no runs yet\n');
  });

  it('lists the 20 most recent sessions without --limit and says how many it left out; --limit and --json as asked (qa47)', async () => {
    const many = projectDatabase('many');
    for (let i = 0; i < 25; i++) {
      many.clock.advance(60_000);
      many.hooks.update(
        { agent: 'claude', sessionId: `s${String(i).padStart(2, '0')}`, projectDir: many.dir },
        () => ({
          next: { ...state, nudges: 0 },
          result: null,
        }),
      );
    }
    many.database.close();
    const rows = (out: string) => out.split('\n').filter((line) => /^claude +\| s\d\d /.test(line));
    const plain = await run(many.dir, ['status']);
    expect(plain.out).toContain('sessions: 25 (25 clean)');
    expect(rows(plain.out)).toHaveLength(20);
    expect(rows(plain.out)[0]).toContain('| s24 ');
    expect(plain.out).toContain('(the 20 most recent of 25 shown; --limit 25 for all)');
    expect(rows((await run(many.dir, ['status', '--limit', '100'])).out)).toHaveLength(25);
    const three = await run(many.dir, ['status', '--limit', '3']);
    expect(rows(three.out)).toHaveLength(3);
    expect(three.out).toContain('(the 3 most recent of 25 shown; --limit 25 for all)');
    expect(JSON.parse((await run(many.dir, ['status', '--json'])).out).sessions.sessions).toHaveLength(25);
  });

  it('sessions50: --verdict lists only the sessions of that verdict, the oldest stop past the 20 most recent included; a bad value is refused', async () => {
    const many = projectDatabase('filtered');
    // the stop is the oldest of 25 sessions: the 20 most recent leave it out
    for (let i = 0; i < 25; i++) {
      many.clock.advance(60_000);
      const sessionId = `s${String(i).padStart(2, '0')}`;
      many.hooks.update({ agent: 'claude', sessionId, projectDir: many.dir }, () => ({
        next: { ...state, nudges: 0, stops: i === 0 ? 1 : 0 },
        result: null,
      }));
      if (i === 0)
        many.database.stateMachine.addContextEntry({
          entryType: 'decision',
          topic: 'loop_stop',
          content: 'You ran the same failing command 4 times.',
          relatedTasks: [`claude:${sessionId}`],
          metadata: { loopType: 'repeated_action', toolCall: 4 },
        });
    }
    many.database.close();
    const rows = (out: string) => out.split('\n').filter((line) => /^claude +\| s\d\d /.test(line));
    expect(rows((await run(many.dir, ['status'])).out).some((row) => row.includes('| s00 '))).toBe(false);
    const stopped = await run(many.dir, ['status', '--verdict', 'stopped']);
    expect(stopped.code).toBe(EXIT_CODES.ok);
    // the counts are every session's, the list the stopped ones
    expect(stopped.out).toContain('sessions: 25 (24 clean, 1 stopped)');
    expect(rows(stopped.out)).toHaveLength(1);
    expect(rows(stopped.out)[0]).toContain('stopped by loopguard at call 4 (repeated call)');
    const clean = await run(many.dir, ['status', '--verdict', 'clean', '--limit', '3']);
    expect(rows(clean.out)).toHaveLength(3);
    expect(clean.out).toContain('(the 3 most recent of 24 clean shown; --limit 24 for all)');
    const none = await run(many.dir, ['status', '--verdict', 'stopped_on_spend']);
    expect(rows(none.out)).toHaveLength(0);
    expect(none.out).toContain('(no session stopped on spend)');
    const json = JSON.parse((await run(many.dir, ['status', '--json', '--verdict', 'stopped'])).out);
    expect(json.sessions.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['s00']);
    const bad = await run(many.dir, ['status', '--verdict', 'looped']);
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.out).toBe('');
    // one line naming the flag (then commander's pointer to --help, as for every bad flag)
    const [first] = bad.err.split('\n');
    expect(first).toContain("'--verdict <verdict>' argument 'looped' is invalid");
    expect(first).toContain('must be one of running, clean, nudged, stopped, stopped_on_spend');
  });

  it("says the project's hooks are off where its configuration switches them off (the sessions are from before)", async () => {
    const off = hooksOnlyProject('off-app');
    writeFileSync(join(off, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
    const line =
      'hooks: off in this project (hook.enabled: false in loopguard.config.yaml): loopguard guards no session here';
    expect((await run(join(off, 'src'), ['status'])).out).toContain(`.loopguard/state.db\n${line}\n`);
    const session = await run(off, ['status', '--session', 'nudged']);
    expect(session.out).toContain(line);
    // on: no such line
    expect((await run(join(project, 'src'), ['status'])).out).not.toContain('hooks: off');
  });

  // trust52: a cloned repository's exemptions and thresholds narrow what is guarded (a threshold of a
  // million is the guard switched off), and no door said so
  it("lists the project's own exemptions and thresholds, the file they come from, and whether git brought it", async () => {
    const exempt = hooksOnlyProject('exempt-app');
    const file = join(exempt, 'loopguard.config.yaml');
    writeFileSync(
      file,
      'hook:\n  exemptCommands: ["^(?:npm|make|pytest) ", "\\u001b]0;x"]\n  exemptTools: [BashOutput, Edit, Write]\n',
    );
    const line = `hooks: settings of this project (${file}): commands matching "^(?:npm|make|pytest) ", "\\u001b]0;x" and the tools "Edit", "Write" are exempt: loopguard judges none of their calls`;
    const status = await run(join(exempt, 'src'), ['status']);
    expect(status.out).toContain(`.loopguard/state.db\n${line}\n`);
    expect((await run(exempt, ['status', '--session', 'nudged'])).out).toContain(line);
    const json = JSON.parse((await run(exempt, ['status', '--json'])).out);
    expect(json.hooksConfigured).toBe(line.slice('hooks: '.length));
    // thresholds so high that no loop is ever nudged or stopped
    writeFileSync(
      file,
      'hook:\n  repeatThreshold: 1000000\n  sameErrorThreshold: 1000000\n  stopAfter: 1000000\n  lockTimeoutMs: 0\n  exemptTools: [Edit]\n',
    );
    expect((await run(exempt, ['status'])).out).toContain(
      `hooks: settings of this project (${file}): the tool "Edit" is exempt: loopguard judges none of its calls; repeatThreshold 1000000 (default 3), sameErrorThreshold 1000000 (default 3), stopAfter 1000000 (default 1), lockTimeoutMs 0 (default 3000)\n`,
    );
    // a file git tracks came with the repository
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: exempt });
    git('init', '-q');
    git('add', 'loopguard.config.yaml');
    expect((await run(exempt, ['status'])).out).toContain(
      `hooks: settings of this project (${file}, which git tracks: it came with the repository): `,
    );
    // the defaults alone (a tool list without additions, a threshold at its default) say nothing
    writeFileSync(file, 'hook:\n  exemptTools: [BashOutput, sleep]\n  repeatThreshold: 3\n');
    expect((await run(exempt, ['status'])).out).not.toContain('settings of this project');
    expect(JSON.parse((await run(exempt, ['status', '--json'])).out)).not.toHaveProperty('hooksConfigured');
  });

  // trust52: a repository's `spend.prices` can price a model the library knows at $0, so that a
  // budget in dollars never trips while every door shows it
  it('says which models the project prices below the pricing library, and from which file', async () => {
    const cheap = hooksOnlyProject('cheap-app');
    const file = join(cheap, 'loopguard.config.yaml');
    writeFileSync(
      file,
      'spend:\n  session: { maxCostUsd: 10 }\n  prices:\n    claude-sonnet-4-5: { input: 0, output: 0 }\n    claude-opus-4-5: { input: 100, output: 100 }\n    my-fine-tune: { input: 0, output: 0 }\n',
    );
    const line = `spend: prices in this project below the pricing library's: "claude-sonnet-4-5" input $0.00 (the library: $3.00), output $0.00 (the library: $15.00), cache writes $0.00 (the library: $3.75), cache reads $0.00 (the library: $0.30) a million tokens (from ${file}): every budget in dollars counts these replies at them`;
    expect((await run(cheap, ['status'])).out).toContain(`.loopguard/state.db\n${line}\n`);
    const json = JSON.parse((await run(cheap, ['status', '--json'])).out);
    expect(json.pricesBelowLibrary).toBe(line.slice('spend: '.length));
    // init, where the budget is set, says it beside the budget
    // a home of its own: init in the home folder itself is refused (qa64)
    const init = await run(cheap, ['init', 'claude', '--spend', '--dry-run'], {
      HOME: mkdtempSync(join(tmpdir(), 'loopguard-home-')),
    });
    expect(init.out).toContain(
      'spend guard kept: $10.00 a session, warned at 80 %, a reply without a price: warn, prices below the pricing library\'s: "claude-sonnet-4-5"',
    );
    // a price at or above the library's, or for a model it does not price, says nothing
    writeFileSync(
      file,
      'spend:\n  prices:\n    claude-sonnet-4-5: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }\n    my-fine-tune: { input: 0, output: 0 }\n',
    );
    expect((await run(cheap, ['status'])).out).not.toContain('below the pricing library');
  });

  // review59: `status --session` printed the hooks lines (sessions57, trust52's settings) but not the
  // prices line, above the one session whose `$0.00 of $10.00` those prices make
  it('status --session says the prices below the pricing library too, within 80 columns on a terminal', async () => {
    const cheap = hooksOnlyProject('cheap-session');
    const file = join(cheap, 'loopguard.config.yaml');
    writeFileSync(
      file,
      'hook:\n  exemptTools: [Edit]\nspend:\n  session: { maxCostUsd: 10 }\n  prices:\n    claude-sonnet-4-5: { input: 0, output: 0 }\n',
    );
    const settings = `hooks: settings of this project (${file}): the tool "Edit" is exempt: loopguard judges none of its calls`;
    const prices = `spend: prices in this project below the pricing library's: "claude-sonnet-4-5" input $0.00`;
    const one = await run(cheap, ['status', '--session', 'nudged']);
    expect(one.out).toContain(`.loopguard/state.db\n${settings}\n${prices}`);
    const io = bufferedIo({ cwd: cheap, env: { NO_COLOR: '1' }, isTTY: true, columns: 80 });
    await runCli(['status', '--session', 'nudged'], io);
    const lines = io.out().split('\n');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    expect(
      lines.some((line) => line.startsWith("spend: prices in this project below the pricing library's:")),
    ).toBe(true);
  });

  // sessions60: `status --session --json` carried none of the facts of the project's configuration
  // that `status --json` (and `status --session`'s terminal lines) carry
  it('status --session --json carries the hooks and prices facts status --json does', async () => {
    const configured = hooksOnlyProject('configured-session-json');
    const file = join(configured, 'loopguard.config.yaml');
    const facts = (body: Record<string, unknown>) => ({
      hooksOff: body.hooksOff,
      hooksConfigured: body.hooksConfigured,
      pricesBelowLibrary: body.pricesBelowLibrary,
    });
    for (const yaml of [
      'hook:\n  exemptTools: [Edit]\nspend:\n  prices:\n    claude-sonnet-4-5: { input: 0, output: 0 }\n',
      'hook:\n  enabled: false\n',
    ]) {
      writeFileSync(file, yaml);
      const all = facts(JSON.parse((await run(configured, ['status', '--json'])).out));
      expect(Object.values(all).filter((fact) => fact !== undefined)).not.toEqual([]);
      const one = JSON.parse((await run(configured, ['status', '--session', 'nudged', '--json'])).out);
      expect(facts(one)).toEqual(all);
      expect(one.summary).toBeTypeOf('string');
    }
  });

  // qa53: every hook call fails open on such a file (hook.log says so), while status said nothing
  it.each([
    [
      'hook:\n  repeatThreshold: 1\n',
      'hook: "repeatThreshold" Too small: expected number to be >=2 (got number 1)',
    ],
    ['hook: [\n', 'cannot be read: not valid YAML: bad indent at line 2, column 1'],
  ])(
    "says the project's hooks fail open where its configuration is not one they can use: %j",
    async (yaml, reason) => {
      const broken = hooksOnlyProject(`broken-${yaml.length}`);
      const file = join(broken, 'loopguard.config.yaml');
      writeFileSync(file, yaml);
      const line = `hooks: failing open in this project (config ${file}: ${reason}): loopguard guards no session here until that file is fixed`;
      const status = await run(join(broken, 'src'), ['status']);
      expect(status.out).toContain(`.loopguard/state.db\n${line}\n`);
      expect((await run(join(broken, 'src'), ['status', '--session', 'nudged'])).out).toContain(line);
      const json = JSON.parse((await run(join(broken, 'src'), ['status', '--json'])).out);
      expect(json.hooksOff).toBe(line.slice('hooks: '.length));
    },
  );

  it('prints every summary whole, its dollars included: the sentence status --json, the dashboard and the status line say', async () => {
    const spent = hooksOnlyProject('spent-app');
    const database = openLoopGuardDatabase(join(spent, '.loopguard', 'state.db'));
    const key = 'session:claude:looped';
    new SqliteSpendStore({ db: database.db }).update([key], () => ({
      next: new Map([
        [
          key,
          {
            ledger: { totals: { tokens: 80_048, costUsd: 0.32096, unpricedTokens: 1_200 } },
            offset: 10,
            caps: { maxCostUsd: 5 },
          },
        ],
      ]),
      result: null,
    }));
    database.close();
    const json = JSON.parse((await run(spent, ['status', '--json'])).out);
    const summaries: string[] = json.sessions.sessions.map((s: { summary: string }) => s.summary);
    expect(summaries).toContain(
      'stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge, $0.32 of $5.00 (and 1,200 tokens of unpriced models)',
    );
    const { out } = await run(spent, ['status']);
    for (const summary of summaries) expect(out).toContain(summary);
    expect(out).not.toContain('…');
  });

  it("the header gives the dollars its sessions spent, the dashboard's Spent (status --json's sessions.spent), beside the counts", async () => {
    const spent = hooksOnlyProject('spent-total');
    const database = openLoopGuardDatabase(join(spent, '.loopguard', 'state.db'));
    const spend = (key: string, costUsd: number) =>
      new SqliteSpendStore({ db: database.db }).update([key], () => ({
        next: new Map([
          [key, { ledger: { totals: { tokens: 10_000, costUsd, unpricedTokens: 0 } }, offset: 1 }],
        ]),
        result: null,
      }));
    spend('session:claude:looped', 0.32);
    spend('session:gemini:spent', 0.77);
    database.close();
    const json = JSON.parse((await run(spent, ['status', '--json'])).out);
    expect(json.sessions.spent).toBe('$1.09');
    const { out } = await run(spent, ['status']);
    expect(out).toContain('sessions: 3 (1 nudged, 1 stopped, 1 stopped on spend), $1.09 spent');
    // none spent: nothing said of dollars
    expect((await run(project, ['status'])).out).toMatch(
      /sessions: 3 \(1 nudged, 1 stopped, 1 stopped on spend\)\s/,
    );
    expect((await run(project, ['status'])).out).not.toMatch(/\$[\d.]+ spent/);
  });

  it("--session of a session whose subagent loopguard stopped lists that stop, naming the subagent; the session's own verdict decides the exit", async () => {
    const { dir, database, hooks } = projectDatabase('with-subagent');
    hooks.update({ agent: 'claude', sessionId: 'main', projectDir: dir }, () => ({
      next: { ...state, nudges: 0 },
      result: null,
    }));
    hooks.update({ agent: 'claude', sessionId: 'a1b2', projectDir: dir }, () => ({
      next: { ...state, stops: 1, parentSessionId: 'main', agentType: 'Explore' },
      result: null,
    }));
    database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'Stopped (same_error): the loop went on after the nudge.',
      relatedTasks: ['claude:a1b2'],
      metadata: {
        loopType: 'same_error',
        toolCall: 4,
        agent: 'claude',
        sessionId: 'a1b2',
        parentSessionId: 'main',
      },
    });
    database.close();
    const { code, out } = await run(dir, ['status', '--session', 'main']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toMatch(
      / stop at call 4 \(subagent a1b2\): Stopped \(same error\): the loop went on after the nudge\./,
    );
    // doors67: the session's sentence names its stopped subagent, as the status line does, in every
    // door (the subagent's own names none)
    const said = 'no loop found, 4 tool calls ran; 1 subagent stopped by loopguard';
    expect(out).toContain(said);
    expect((await run(dir, ['status'])).out).toContain(said);
    const views = JSON.parse((await run(dir, ['status', '--json'])).out).sessions.sessions as Array<{
      sessionId: string;
      summary: string;
    }>;
    expect(views.map((view) => [view.sessionId, view.summary]).sort()).toEqual([
      ['a1b2', 'stopped by loopguard at call 4 (same error), 4 tool calls ran, 1 nudge'],
      ['main', said],
    ]);
  });

  it("--session says at which tool call each entry fell, as the dashboard and recoveries do: each of Codex's denied repeats is a stop of its own (qa41)", async () => {
    const { dir, clock, database, hooks } = projectDatabase('codex-repeats');
    hooks.update({ agent: 'codex', sessionId: 'denied', projectDir: dir }, () => ({
      next: { ...state, toolCalls: 3, stops: 3 },
      result: null,
    }));
    const entry = (topic: string, toolCall: number) => {
      clock.advance(1_000);
      database.stateMachine.addContextEntry({
        entryType: 'decision',
        topic,
        content: `${topic === 'loop_nudge' ? 'Loop detected' : 'Stopped'} (same_error): the same action failed.\nRepeating: …`,
        relatedTasks: ['codex:denied'],
        metadata: { loopType: 'same_error', toolCall, agent: 'codex', sessionId: 'denied' },
      });
    };
    entry('loop_nudge', 3);
    entry('loop_stop', 4);
    entry('loop_stop', 5);
    database.close();
    const { code, out } = await run(dir, ['status', '--session', 'denied']);
    expect(code).toBe(EXIT_CODES.sessionStopped);
    const lines = out.split('\n').filter((line) => line.startsWith('  '));
    expect(lines.map((line) => line.replace(/^ +\S+ \S+ +/, ''))).toEqual([
      // sess68: the message quoted with its kind in words
      'nudge at call 3: Loop detected (same error): the same action failed.',
      'stop at call 4: Stopped (same error): the same action failed.',
      'stop at call 5: Stopped (same error): the same action failed.',
    ]);
  });

  it('reads ~/.loopguard/state.db when the folder has no project database', async () => {
    const home = hooksOnlyProject('home');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const { code, out } = await run(elsewhere, ['status', '--json'], { HOME: home });
    expect(code).toBe(EXIT_CODES.ok);
    const body = JSON.parse(out);
    expect(body.database).toBe(join(home, '.loopguard', 'state.db'));
    expect(body.sessions.counts).toEqual({
      running: 0,
      clean: 0,
      nudged: 1,
      stopped: 1,
      stopped_on_spend: 1,
    });
    expect(body.sessions.sessions[0]).toMatchObject({ sessionId: 'nudged', verdict: 'nudged' });
  });

  it('--session tells a script that loopguard stopped the session: exit 10, 11 on spend, 0 otherwise', async () => {
    const stopped = await run(project, ['status', '--session', 'looped', '--json']);
    expect(stopped.code).toBe(EXIT_CODES.sessionStopped);
    expect(JSON.parse(stopped.out)).toMatchObject({
      verdict: 'stopped',
      stop: { kind: 'repeated_action', call: 4 },
      entries: [{ topic: 'loop_stop' }],
    });
    expect(stopped.err.trim()).toBe(
      'loopguard: session looped: stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge',
    );
    expect((await run(project, ['status', '--session', 'spent'])).code).toBe(
      EXIT_CODES.sessionStoppedOnSpend,
    );
    const nudged = await run(project, ['status', '--session', 'nudged']);
    expect(nudged.code).toBe(EXIT_CODES.ok);
    expect(nudged.out).toContain('nudged 1×, not stopped');
    const missing = await run(project, ['status', '--session', 'nope']);
    expect(missing.code).toBe(EXIT_CODES.usage);
    expect(missing.err.trim()).toBe(
      `loopguard: --session nope: no such session in ${join(project, '.loopguard', 'state.db')}`,
    );
  });

  it('recoveries and serve find the same database without --db', async () => {
    const { code, out } = await run(project, ['recoveries']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain(`database: ${join(project, '.loopguard', 'state.db')}`);
    expect(out).toContain('claude:looped');
  });
});
