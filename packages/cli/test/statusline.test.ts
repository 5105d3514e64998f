import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ManualClock } from '@loopguard/core';
import { sealText } from '@loopguard/core/steps';
import { openLoopGuardDatabase, SCHEMA_VERSION, SqliteHookSessionStore } from '@loopguard/sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CONFIG_SEAL_STAMP, configKey, SEALED_CONFIG_FILE } from '../src/hook/configSeal.js';
import { SHA256_SEAL_CHECKSUM } from '../src/hook/sealChecksum.js';
import { runCli } from '../src/main.js';
import { statuslineMain } from '../src/statusline/statuslineMain.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { claudeFailingCall, hookCall } from './hookHelpers.js';

// The hook calls here run the build and the status line runs the source: one install's two share
// the build's id, which the sealed configuration is stamped with (trust51).
vi.mock('../src/buildId.js', () => import('../dist/buildId.js'));

const root = mkdtempSync(join(tmpdir(), 'loopguard-statusline-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function line(input: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  let out = '';
  const code = await statuslineMain(
    Readable.from([input]),
    (text) => {
      out += text;
    },
    env,
  );
  expect(code).toBe(0);
  return out;
}

function project(): string {
  const dir = mkdtempSync(join(root, 'p-'));
  const clock = new ManualClock(Date.now() - 3_600_000);
  const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), {
    clock,
    createDirectory: true,
  });
  new SqliteHookSessionStore({ db: database.db, clock }).update(
    { agent: 'claude', sessionId: 's1', projectDir: dir },
    () => ({
      next: {
        snapshot: '{}',
        lastResults: '[]',
        steps: 8,
        toolCalls: 4,
        parentSessionId: null,
        agentType: null,
        nudges: 1,
        stops: 1,
        enabled: true,
      },
      result: null,
    }),
  );
  database.stateMachine.addContextEntry({
    entryType: 'decision',
    topic: 'loop_stop',
    content: 'stop',
    relatedTasks: ['claude:s1'],
    metadata: { loopType: 'repeated_action', toolCall: 4 },
  });
  database.close();
  return dir;
}

describe('loopguard statusline', () => {
  const dir = project();

  it("prints the session's summary, the sentence status prints for it", async () => {
    expect(
      await line(
        JSON.stringify({ session_id: 's1', cwd: join(dir, 'src'), workspace: { project_dir: dir } }),
      ),
    ).toBe('loopguard: stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge\n');
  });

  it('says what status says of a database an earlier loopguard wrote, until a hook brings it up to date (story56)', async () => {
    const older = project();
    const path = join(older, '.loopguard', 'state.db');
    const database = openLoopGuardDatabase(path);
    database.db.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    database.close();
    const io = bufferedIo({ cwd: older, env: { NO_COLOR: '1' } });
    expect(await runCli(['status'], io)).toBe(EXIT_CODES.usage);
    const said = io.err().trim().replace(`loopguard: ${path}: `, '');
    expect(said).toMatch(/^written by an earlier loopguard \(schema version/);
    const input = JSON.stringify({ session_id: 's1', cwd: older, workspace: { project_dir: older } });
    expect(await line(input)).toBe(`loopguard: ${said}\n`);
    // what a hook's open does: the database migrated, the line is the session's again
    openLoopGuardDatabase(path).close();
    expect(await line(input)).toContain('stopped by loopguard at call 4');
  });

  it('reads the project from CLAUDE_PROJECT_DIR first, as the hooks do', async () => {
    expect(
      await line(JSON.stringify({ session_id: 's1', cwd: root }), { CLAUDE_PROJECT_DIR: dir }),
    ).toContain('at call 4');
  });

  it("finds a session started in a subfolder of a repository in the repository's database, where the hooks record it (qa47)", async () => {
    const repo = project();
    mkdirSync(join(repo, '.git'));
    const deep = join(repo, 'src', 'deep');
    mkdirSync(deep, { recursive: true });
    expect(
      await line(JSON.stringify({ session_id: 's1', cwd: deep, workspace: { project_dir: deep } })),
    ).toContain('stopped by loopguard at call 4');
  });

  it('keeps reading the repository where a `.git` was made in the session folder since (trust45), as the hooks record it', async () => {
    const repo = project();
    mkdirSync(join(repo, '.git'));
    const deep = join(repo, 'src', 'deep');
    mkdirSync(join(deep, '.git'), { recursive: true });
    const of = (session: string) =>
      line(JSON.stringify({ session_id: session, cwd: deep, workspace: { project_dir: deep } }));
    expect(await of('s1')).toContain('stopped by loopguard at call 4');
    // a session the repository never held is the new repository's
    expect(await of('new')).toBe('loopguard: watching\n');
  });

  it('keeps reading the repository where a second session has since made the new repository its database (trust46)', async () => {
    const repo = project();
    mkdirSync(join(repo, '.git'));
    const deep = join(repo, 'src', 'deep');
    mkdirSync(join(deep, '.git'), { recursive: true });
    const other = openLoopGuardDatabase(join(deep, '.loopguard', 'state.db'), { createDirectory: true });
    other.close();
    const of = (session: string) =>
      line(JSON.stringify({ session_id: session, cwd: deep, workspace: { project_dir: deep } }));
    expect(await of('s1')).toContain('stopped by loopguard at call 4');
  });

  it('says it is watching before the first tool call, and never fails the status line', async () => {
    expect(await line(JSON.stringify({ session_id: 'new', cwd: dir }))).toBe('loopguard: watching\n');
    expect(await line(JSON.stringify({ session_id: 's1', cwd: root }))).toBe('loopguard: watching\n');
    expect(await line('not json')).toBe('loopguard: status unavailable\n');
    expect(await line(JSON.stringify({ cwd: dir }))).toBe('loopguard: status unavailable\n');
    const broken = mkdtempSync(join(root, 'broken-'));
    mkdirSync(join(broken, '.loopguard'));
    writeFileSync(join(broken, '.loopguard', 'state.db'), 'not a database '.repeat(100));
    expect(await line(JSON.stringify({ session_id: 's1', cwd: broken }))).toBe(
      'loopguard: status unavailable\n',
    );
  });

  it('says loopguard is off where a switch turned it off, never "watching" a session it does not guard', async () => {
    const input = (session: string) => JSON.stringify({ session_id: session, cwd: dir });
    // Claude Code hands its environment to the status line, as to the hooks
    expect(await line(input('new'), { LOOPGUARD_HOOK: 'off' })).toBe(
      'loopguard: off for this session (LOOPGUARD_HOOK=off)\n',
    );
    expect(await line(input('s1'), { LOOPGUARD_HOOK: 'off' })).toBe(
      'loopguard: off for this session (LOOPGUARD_HOOK=off)\n',
    );
    // trust71: every spelling of off the hooks read, named as the user set it
    for (const value of ['OFF', ' 0 ', 'false', 'No'])
      expect(await line(input('s1'), { LOOPGUARD_HOOK: value })).toBe(
        `loopguard: off for this session (LOOPGUARD_HOOK=${value.trim()})\n`,
      );
    // a typo leaves the hooks on: the line says what it watches, and that the value was not read as off
    expect(await line(input('new'), { LOOPGUARD_HOOK: 'of' })).toBe(
      'loopguard: watching · LOOPGUARD_HOOK="of" is neither off (off, 0, false, no) nor on: loopguard stays on\n',
    );
    expect(await line(input('new'), { LOOPGUARD_HOOK: 'on' })).toBe('loopguard: watching\n');
    const off = project();
    const database = openLoopGuardDatabase(join(off, '.loopguard', 'state.db'));
    database.db.prepare("UPDATE hook_sessions SET enabled = 0 WHERE session_id = 's1'").run();
    database.close();
    expect(await line(JSON.stringify({ session_id: 's1', cwd: off }))).toBe(
      'loopguard: off for this session (switched off), stopped by loopguard at call 4 (repeated call), 4 tool calls ran, 1 nudge\n',
    );
  });

  it('says loopguard is off in a project whose configuration switches the hooks off (hook.enabled: false)', async () => {
    // the hooks stay silent there and write nothing: "watching" or an old summary would be wrong
    const yaml = mkdtempSync(join(root, 'off-yaml-'));
    writeFileSync(join(yaml, 'loopguard.config.yaml'), 'hook: {enabled: false}\n');
    expect(await line(JSON.stringify({ session_id: 's1', cwd: yaml }))).toBe(
      'loopguard: off in this project (hook.enabled: false in loopguard.config.yaml)\n',
    );
    const guarded = project();
    writeFileSync(join(guarded, 'loopguard.config.json'), '{"hook": {"enabled": false}}');
    expect(await line(JSON.stringify({ session_id: 's1', cwd: guarded }))).toBe(
      'loopguard: off in this project (hook.enabled: false in loopguard.config.json)\n',
    );
    const block = mkdtempSync(join(root, 'off-yml-'));
    writeFileSync(join(block, 'loopguard.config.yml'), 'hook:\n  sameErrorThreshold: 3\n  enabled: False\n');
    expect(await line(JSON.stringify({ session_id: 's1', cwd: block }))).toBe(
      'loopguard: off in this project (hook.enabled: false in loopguard.config.yml)\n',
    );
    // the session's switch is read first: a configuration that cannot be parsed does not hide it
    const broken = mkdtempSync(join(root, 'off-broken-'));
    writeFileSync(join(broken, 'loopguard.config.yaml'), 'hook: {enabled: false\n');
    expect(await line(JSON.stringify({ session_id: 's1', cwd: broken }), { LOOPGUARD_HOOK: 'off' })).toBe(
      'loopguard: off for this session (LOOPGUARD_HOOK=off)\n',
    );
    expect(await line(JSON.stringify({ session_id: 's1', cwd: broken }))).toBe(
      'loopguard: status unavailable\n',
    );
    // a configuration that leaves the hooks on changes nothing
    const on = project();
    writeFileSync(
      join(on, 'loopguard.config.yaml'),
      'hook:\n  enabled: true\nspend:\n  session:\n    maxCostUsd: 5\n',
    );
    expect(await line(JSON.stringify({ session_id: 's1', cwd: on }))).toContain('at call 4');
    const budget = project();
    writeFileSync(
      join(budget, 'loopguard.config.yml'),
      'spend:\n  session:\n    maxCostUsd: 5\n  enabled: false # not the hooks\n',
    );
    expect(await line(JSON.stringify({ session_id: 's1', cwd: budget }))).toContain('at call 4');
  });

  it("says the hooks fail open on the project's configuration, in the words status uses, once a hook call failed open on it (sessions55)", async () => {
    const dir = project();
    const file = join(dir, 'loopguard.config.yaml');
    const input = JSON.stringify({ session_id: 's1', cwd: dir });
    const failingOpen = (reason: string) =>
      `loopguard: failing open in this project (config ${file}: ${reason}) until that file is fixed\n`;
    const status = async () => {
      // from a folder below: in the project's own, status reads the file for serve.postgres too,
      // and refuses YAML it cannot parse
      mkdirSync(join(dir, 'src'), { recursive: true });
      const io = bufferedIo({ cwd: join(dir, 'src'), env: { NO_COLOR: '1' } });
      await runCli(['status'], io);
      return io.out();
    };
    for (const [yaml, reason] of [
      [
        'hook:\n  repeatThreshold: 1\n',
        'hook: "repeatThreshold" Too small: expected number to be >=2 (got number 1)',
      ],
      ['hook: [\n', 'cannot be read: not valid YAML: bad indent at line 2, column 1'],
    ] as const) {
      writeFileSync(file, yaml);
      expect((await hookCall(dir, 'claude', claudeFailingCall(dir, 's1', 5).pre)).stdout).toBe('');
      expect(await line(input)).toBe(failingOpen(reason));
      expect(await status()).toContain(`hooks: failing open in this project (config ${file}: ${reason}):`);
    }
    // fixed: the session's own line again, once a hook call validated the file, and before it too
    writeFileSync(file, 'hook:\n  repeatThreshold: 3\n');
    expect(await line(input)).toContain('at call 4');
    await hookCall(dir, 'claude', claudeFailingCall(dir, 's1', 5).pre);
    expect(await line(input)).toContain('at call 4');
    // a file no hook call can read (a FIFO in its place): said at once (status refuses to start on it)
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(await line(input)).toBe(
      `loopguard: failing open in this project (config ${file} is not a regular file) until that file is fixed\n`,
    );
  });

  // trust53: a cloned repository's file that exempts the editing tools, raises the thresholds to a
  // million or prices a model at $0 changes what the guard does while the line said the session's
  // verdict alone; `status` says how, the line points to it.
  it("says the project's settings narrow the guard or price replies below the pricing library, once a hook call validated the file (trust53)", async () => {
    const dir = project();
    const file = join(dir, 'loopguard.config.yaml');
    const input = JSON.stringify({ session_id: 's1', cwd: dir });
    const after = async (yaml: string) => {
      writeFileSync(file, yaml);
      await hookCall(dir, 'claude', claudeFailingCall(dir, 's1', 5).pre);
      return line(input);
    };
    expect(await after('hook:\n  repeatThreshold: 1000000\n')).toMatch(
      /at call 4.*; this project's settings narrow the guard \(loopguard status says how\)\n$/,
    );
    expect(await after('hook:\n  exemptTools: [BashOutput, sleep, Edit]\n')).toContain(
      "; this project's settings narrow the guard (loopguard status says how)",
    );
    expect(await after('spend:\n  prices:\n    claude-sonnet-4-5: { input: 0, output: 0 }\n')).toMatch(
      /at call 4.*; this project prices replies below the pricing library \(loopguard status says how\)\n$/,
    );
    // the defaults written out, a fine-tune's price: nothing to say
    for (const yaml of [
      'hook:\n  repeatThreshold: 3\n  exemptTools: [BashOutput, sleep]\n',
      'spend:\n  prices:\n    my-fine-tune: { input: 0, output: 0 }\n',
    ])
      expect(await after(yaml)).not.toMatch(/this project/);
  });

  it('says the hooks fail open when a hook of another build refused the file: a running MCP server of the build before an upgrade (review56)', async () => {
    const dir = project();
    const file = join(dir, 'loopguard.config.yaml');
    writeFileSync(file, 'hook:\n  repeatThreshold: 1\n');
    const error = `config ${file}: hook: "repeatThreshold" Too small: expected number to be >=2 (got number 1)`;
    // what the other build's hook kept: the same layout, its own build's id in the stamp
    const stamp = CONFIG_SEAL_STAMP.replace(/^c4\.[^.]+\./, 'c4.0123456789abcdef.');
    expect(stamp).not.toBe(CONFIG_SEAL_STAMP);
    const body = JSON.stringify({ file: configKey(file).key, error });
    writeFileSync(
      join(dir, '.loopguard', SEALED_CONFIG_FILE),
      sealText(body, stamp, 'state', SHA256_SEAL_CHECKSUM),
      {
        mode: 0o600,
      },
    );
    expect(await line(JSON.stringify({ session_id: 's1', cwd: dir }))).toBe(
      `loopguard: failing open in this project (${error}) until that file is fixed\n`,
    );
    // another layout (an older build's `c3`) is not read: its fields may mean other things
    writeFileSync(
      join(dir, '.loopguard', SEALED_CONFIG_FILE),
      sealText(body, stamp.replace(/^c4/, 'c3'), 'state', SHA256_SEAL_CHECKSUM),
    );
    expect(await line(JSON.stringify({ session_id: 's1', cwd: dir }))).toContain('at call 4');
  });

  it("names what loopguard did to the session's subagents: the main thread ran on, its subagent was stopped", async () => {
    const dir = mkdtempSync(join(root, 'sub-'));
    const clock = new ManualClock(Date.now() - 3_600_000);
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), {
      clock,
      createDirectory: true,
    });
    const hooks = new SqliteHookSessionStore({ db: database.db, clock });
    const run = (sessionId: string, parentSessionId: string | null, stops: number) =>
      hooks.update({ agent: 'claude', sessionId, projectDir: dir }, () => ({
        next: {
          snapshot: '{}',
          lastResults: '[]',
          steps: 8,
          toolCalls: 4,
          parentSessionId,
          agentType: parentSessionId === null ? null : 'general-purpose',
          nudges: stops,
          stops,
          enabled: true,
        },
        result: null,
      }));
    run('main', null, 0);
    run('a1b2', 'main', 1);
    run('c3d4', 'main', 0);
    database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'stop',
      relatedTasks: ['claude:a1b2'],
      metadata: { loopType: 'same_error', toolCall: 4 },
    });
    database.close();
    // Claude Code keeps each subagent's transcript beside the session's
    const transcript = join(dir, 'transcripts', 'main.jsonl');
    mkdirSync(join(dir, 'transcripts', 'main', 'subagents'), { recursive: true });
    writeFileSync(transcript, '');
    for (const id of ['a1b2', 'c3d4'])
      writeFileSync(join(dir, 'transcripts', 'main', 'subagents', `agent-${id}.jsonl`), '');
    expect(await line(JSON.stringify({ session_id: 'main', cwd: dir, transcript_path: transcript }))).toBe(
      'loopguard: no loop found, 4 tool calls ran; 1 subagent stopped by loopguard\n',
    );
  });

  it("never reads a state.db planted as a link (another user's database shown as this session's)", async () => {
    const planted = mkdtempSync(join(root, 'planted-'));
    mkdirSync(join(planted, '.loopguard'));
    symlinkSync(join(dir, '.loopguard', 'state.db'), join(planted, '.loopguard', 'state.db'));
    expect(await line(JSON.stringify({ session_id: 's1', cwd: planted }))).toBe(
      'loopguard: not guarding this project (its .loopguard is refused; `loopguard status` says why)\n',
    );
  });
});
