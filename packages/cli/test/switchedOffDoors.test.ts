import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { claudeSession } from './guardTranscripts.js';
import { bufferedIo } from './helpers.js';
import { bin } from './runHelpers.js';

// sessions53: a repository's `hook.enabled: false` switched loopguard off for the sessions started
// there, and no door said so: `status` there listed the project above's sessions (or promised a
// database "at a session's first tool call"), `scan` showed the session as any other. Every door
// now says that sessions there are not guarded and which file says so; the hooks still write nothing.

/** A repository (`app`, hooks on, its database made by one session) holding another (`app/vendor/lib`) whose configuration switches them off. */
function repositories(): { app: string; lib: string } {
  const app = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-off-')));
  const lib = join(app, 'vendor', 'lib');
  mkdirSync(join(app, '.git'), { recursive: true });
  mkdirSync(join(lib, '.git'), { recursive: true });
  writeFileSync(join(app, 'loopguard.config.yaml'), '');
  writeFileSync(join(lib, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
  hook(app, 'on');
  return { app, lib };
}

/** One tool call of Claude Code session `sessionId` started in `dir`, through the built hook; its reply. */
function hook(dir: string, sessionId: string): string {
  const event = {
    session_id: sessionId,
    cwd: dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_response: { stdout: '', stderr: '', interrupted: false },
    tool_use_id: `toolu_${sessionId}`,
  };
  const run = spawnSync(process.execPath, [bin, 'hook', 'claude'], {
    cwd: dir,
    input: JSON.stringify(event),
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, HOME: dir, LOOPGUARD_HOOK: '' },
  });
  expect(run.status).toBe(0);
  return run.stdout;
}

/** A home folder apart from the repositories: the search for a database stops at the home folder's. */
const home = mkdtempSync(join(tmpdir(), 'loopguard-off-home-'));

async function cli(dir: string, args: string[]) {
  const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: home } });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('sessions53: a repository whose configuration switches the hooks off', () => {
  it('writes nothing there, and status, status --json (the dashboard) and scan say its sessions are not guarded, naming the file', async () => {
    const { app, lib } = repositories();
    expect(hook(lib, 'off')).toBe('');
    expect(existsSync(join(lib, '.loopguard'))).toBe(false);
    const words = `off in ${lib} (hook.enabled: false in ${join(lib, 'loopguard.config.yaml')}): loopguard guards no session started there`;
    // status in the repository below: a project of its own, which recorded nothing; the database
    // above holds none of its sessions, and is not read (sessions60)
    for (const args of [['status'], ['status', '--json']]) {
      const status = await cli(lib, args);
      expect(status.code).toBe(EXIT_CODES.usage);
      expect(status.out).toBe('');
      expect(status.err).toBe(`loopguard: ${words}, and recorded none\n`);
    }
    // at the root, where the hooks are on: nothing of it
    expect((await cli(app, ['status'])).out).not.toContain('hooks:');
    // scan of the session started there
    const transcript = join(mkdtempSync(join(tmpdir(), 'loopguard-off-scan-')), 'off.jsonl');
    const base = { sessionId: 'off', cwd: lib, isSidechain: false, timestamp: new Date().toISOString() };
    writeFileSync(
      transcript,
      `${JSON.stringify({ ...base, type: 'assistant', requestId: 'r1', message: { id: 'm1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_off', name: 'Bash', input: { command: 'ls' } }], usage: { input_tokens: 10, output_tokens: 5 } } })}\n${JSON.stringify({ ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_off', content: '' }] } })}\n`,
    );
    const scanJson = await cli(lib, ['scan', transcript, '--json', '--no-cache']);
    expect(scanJson.code, scanJson.err).toBe(EXIT_CODES.ok);
    const [session] = (JSON.parse(scanJson.out) as ScanReport).sessions;
    expect(session?.record).toBeUndefined();
    expect(session?.unguarded).toBe(words);
    const html = join(lib, '..', 'report.html');
    const scan = await cli(lib, ['scan', transcript, '--no-cache', '--html', html]);
    expect(readFileSync(html, 'utf8')).toContain(`<ul id="unguarded"><li>1 session: ${words}.</li></ul>`);
    expect(scan.out).toContain(`Not guarded by loopguard (what status says there):\n1 session: ${words}.`);
  });

  it("sessions59: scan's headline does not count a loop of a session loopguard did not guard as one it would have stopped", async () => {
    const { app, lib } = repositories();
    // a session the user switched off on its row (codex58's switch), and one started where the hooks are off
    expect(hook(app, 'switched')).toBe('');
    const db = join(app, '.loopguard', 'state.db');
    const database = new Database(db);
    database.prepare("UPDATE hook_sessions SET enabled = 0 WHERE session_id = 'switched'").run();
    database.close();
    const folder = mkdtempSync(join(tmpdir(), 'loopguard-off-loops-'));
    const looping = (sessionId: string, cwd: string) =>
      (claudeSession(8, {}) as Array<Record<string, unknown>>).map((line) => ({ ...line, sessionId, cwd }));
    for (const [name, lines] of [
      ['switched', looping('switched', app)],
      ['unguarded', looping('unguarded', lib)],
    ] as const)
      writeFileSync(
        join(folder, `${name}.jsonl`),
        `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
      );
    const scan = await cli(app, ['scan', folder, '--no-cache']);
    expect(scan.code, scan.err).toBe(EXIT_CODES.ok);
    const text = scan.out.replace(/\s+/g, ' ');
    expect(text).toContain('2 sessions looped while loopguard was off for them (see "Not guarded" below):');
    expect(text).not.toContain('would have stopped');
    expect(text).toContain(`1 session: off for this session (switched off), in ${app}.`);
    expect(text).toContain(`1 session: off in ${lib} (hook.enabled: false`);
  });

  it('review54: a repository whose configuration the hooks fail open on is told alike (status below the project, scan, no database)', async () => {
    const { app, lib } = repositories();
    const file = join(lib, 'loopguard.config.yaml');
    writeFileSync(file, 'hook:\n  repeatThreshold: -1\n');
    expect(hook(lib, 'failing')).toBe('');
    // said in its hook.log, recorded nowhere
    expect(existsSync(join(lib, '.loopguard', 'state.db'))).toBe(false);
    const status = await cli(lib, ['status']);
    expect(status.code).toBe(EXIT_CODES.usage);
    expect(status.err).toMatch(
      new RegExp(
        `^loopguard: failing open in ${lib} \\(config ${file}: hook: .*\\): loopguard guards no session started there until that file is fixed, and recorded none\n$`,
      ),
    );
    expect((await cli(app, ['status'])).out).not.toContain('hooks:');
    const transcript = join(mkdtempSync(join(tmpdir(), 'loopguard-failing-scan-')), 'failing.jsonl');
    const base = { sessionId: 'failing', cwd: lib, isSidechain: false, timestamp: new Date().toISOString() };
    writeFileSync(
      transcript,
      `${JSON.stringify({ ...base, type: 'assistant', requestId: 'r1', message: { id: 'm1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_f', name: 'Bash', input: { command: 'ls' } }], usage: { input_tokens: 10, output_tokens: 5 } } })}\n`,
    );
    const scanJson = await cli(app, ['scan', transcript, '--json', '--no-cache']);
    expect(scanJson.code, scanJson.err).toBe(EXIT_CODES.ok);
    const [session] = (JSON.parse(scanJson.out) as ScanReport).sessions;
    expect(session?.unguarded).toMatch(new RegExp(`^failing open in ${lib} \\(config ${file}: hook: `));
    // alone, without a database anywhere: not "a session's first tool call makes one"
    const alone = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-failing-alone-')));
    mkdirSync(join(alone, '.git'));
    writeFileSync(join(alone, 'loopguard.config.yaml'), 'hook:\n  repeatThreshold: -1\n');
    const none = await cli(alone, ['status']);
    expect(none.code).toBe(EXIT_CODES.usage);
    expect(none.err).toMatch(
      new RegExp(`^loopguard: failing open in ${alone} \\(config .*\\): .*, and recorded none\n$`),
    );
  });

  it('with no database anywhere: status says the hooks are off there, not that a session will make one', async () => {
    const lib = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-off-alone-')));
    mkdirSync(join(lib, '.git'));
    mkdirSync(join(lib, 'src'));
    writeFileSync(join(lib, 'loopguard.config.yaml'), 'hook:\n  enabled: false\n');
    for (const dir of [lib, join(lib, 'src')]) {
      const status = await cli(dir, ['status']);
      expect(status.code).toBe(EXIT_CODES.usage);
      expect(status.err).toBe(
        `loopguard: off in ${lib} (hook.enabled: false in ${join(lib, 'loopguard.config.yaml')}): loopguard guards no session started there, and recorded none\n`,
      );
    }
  });
});

describe('sessions57: a project whose own configuration is not valid YAML', () => {
  it('status, status --json (the dashboard) and scan there say the hooks fail open on it, instead of refusing it', async () => {
    const { app } = repositories(); // its database holds the session from before the file broke
    const file = join(app, 'loopguard.config.yaml');
    writeFileSync(file, 'hook:\n  enabled: [\n');
    expect(hook(app, 'broken')).toBe('');
    const failing = new RegExp(
      `failing open in this project \\(config ${file}: .*\\): loopguard guards no session here until that file is fixed`,
    );
    const status = await cli(app, ['status']);
    expect(status.code, status.err).toBe(EXIT_CODES.ok);
    expect(status.out).toMatch(new RegExp(`hooks: ${failing.source}\n`));
    expect(status.out).toContain('sessions: 1');
    // on a terminal of 80 columns, the line wrapped between words as the sessions are (qa54's rule)
    const io = bufferedIo({ cwd: app, env: { NO_COLOR: '1', HOME: app }, isTTY: true, columns: 80 });
    expect(await runCli(['status'], io)).toBe(EXIT_CODES.ok);
    const narrow = io.out();
    for (const line of narrow.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(narrow.replace(/\n {2}/g, ' ')).toMatch(new RegExp(`hooks: ${failing.source}\n`));
    const json = await cli(app, ['status', '--json']);
    expect(json.code, json.err).toBe(EXIT_CODES.ok);
    expect(JSON.parse(json.out).hooksOff).toMatch(failing);
    expect((await cli(app, ['recoveries'])).code).toBe(EXIT_CODES.ok);
    // scan there: the sessions judged with the defaults (the hooks guard none), the failure said
    const transcript = join(mkdtempSync(join(tmpdir(), 'loopguard-broken-scan-')), 'broken.jsonl');
    const base = { sessionId: 'broken', cwd: app, isSidechain: false, timestamp: new Date().toISOString() };
    writeFileSync(
      transcript,
      `${JSON.stringify({ ...base, type: 'assistant', requestId: 'r1', message: { id: 'm1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'ls' } }], usage: { input_tokens: 10, output_tokens: 5 } } })}\n`,
    );
    const scanJson = await cli(app, ['scan', transcript, '--json', '--no-cache']);
    expect(scanJson.code, scanJson.err).toBe(EXIT_CODES.ok);
    const [session] = (JSON.parse(scanJson.out) as ScanReport).sessions;
    expect(session?.unguarded).toMatch(new RegExp(`^failing open in ${app} \\(config ${file}: `));
    const scan = await cli(app, ['scan', transcript, '--no-cache']);
    expect(scan.code, scan.err).toBe(EXIT_CODES.ok);
    expect(scan.out).toMatch(
      /Not guarded by loopguard \(what status says there\):\n1 session: failing open in /,
    );
    expect(scan.err).toMatch(
      new RegExp(
        `^loopguard scan: config ${file}: .*: the hooks fail open on it; sessions replayed with the default options\n$`,
      ),
    );
    // with no database yet: the hooks' words, not the parser's refusal
    const alone = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-broken-alone-')));
    mkdirSync(join(alone, '.git'));
    writeFileSync(join(alone, 'loopguard.config.yaml'), 'hook:\n  enabled: [\n');
    const none = await cli(alone, ['status']);
    expect(none.code).toBe(EXIT_CODES.usage);
    expect(none.err).toMatch(
      new RegExp(`^loopguard: failing open in ${alone} \\(config .*\\): .*, and recorded none\n$`),
    );
    // a file the user names is still refused: they asked for its serve section
    const named = await cli(app, ['serve', '--config', file, '--port', '0']);
    expect(named.code).toBe(EXIT_CODES.usage);
    expect(named.err).toMatch(new RegExp(`^loopguard: config ${file}: cannot be read: `));
  });
});
