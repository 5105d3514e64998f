import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ResidentServer } from '../src/resident/ResidentServer.js';
import { residentRequest } from '../src/resident/residentClient.js';
import {
  ensureResidentConfig,
  type ResidentConfig,
  readResidentConfig,
} from '../src/resident/residentConfig.js';
import { claudeEvent, claudeFailingCall, hookCall, hookLog, hookState, tempProject } from './hookHelpers.js';
import { bin, loopguard } from './runHelpers.js';

const servers: ResidentServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

/** A resident server of a fresh user, listening; its log lines collected. */
async function residentServer(checkIntervalMs = 60_000) {
  const home = mkdtempSync(join(tmpdir(), 'loopguard-resident-home-'));
  const config = await ensureResidentConfig(home);
  const log: string[] = [];
  const server = new ResidentServer({ config, checkIntervalMs, log: (line) => log.push(line) });
  await server.start();
  servers.push(server);
  return { home, config, server, log };
}

/** A Claude Code `PostToolUse` of `echo <n>` in session `s1`: a new command each `n` (progress). */
const echoCall = (project: string, n: number) =>
  claudeEvent(project, 's1', 'PostToolUse', {
    tool_name: 'Bash',
    tool_input: { command: `echo ${n}` },
    tool_response: { stdout: `${n}`, stderr: '' },
  });

async function post(config: ResidentConfig, event: unknown): Promise<string> {
  const response = await residentRequest(config, 'POST', '/hook/claude', event);
  expect(response.status).toBe(200);
  return response.text();
}

describe('the resident process of Claude Code’s http hooks', () => {
  it('keeps one configuration per user: a port and a token, readable by the user only', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopguard-resident-home-'));
    const config = await ensureResidentConfig(home);
    expect(config.token).toMatch(/^[0-9a-f]{64}$/);
    expect(await ensureResidentConfig(home)).toEqual(config);
    expect(readResidentConfig(home)).toEqual(config);
    const { statSync } = await import('node:fs');
    expect(statSync(join(home, '.loopguard', 'resident.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a request without the user’s token', async () => {
    const { config } = await residentServer();
    const noToken = await fetch(`http://127.0.0.1:${config.port}/health`);
    expect(noToken.status).toBe(401);
    const wrong = await residentRequest({ ...config, token: 'x'.repeat(64) }, 'GET', '/health');
    expect(wrong.status).toBe(401);
    expect(await (await residentRequest(config, 'GET', '/health')).json()).toEqual({
      pid: process.pid,
      sessions: 0,
    });
  });

  it('answers as the command hook does, and writes the state to the session’s project', async () => {
    const { config } = await residentServer();
    const viaResident = tempProject();
    const viaCommand = tempProject();
    await residentRequest(config, 'POST', '/sessions', {
      sessionId: 's1',
      projectDir: viaResident,
      enabled: true,
    });
    const replies: string[] = [];
    const commandReplies: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const call = claudeFailingCall(viaResident, 's1', n);
      replies.push(await post(config, call.pre), await post(config, call.post));
      const same = claudeFailingCall(viaCommand, 's1', n);
      commandReplies.push((await hookCall(viaCommand, 'claude', same.pre)).stdout);
      commandReplies.push((await hookCall(viaCommand, 'claude', same.post)).stdout);
    }
    expect(replies.join('')).toContain('additionalContext');
    expect(replies).toEqual(commandReplies.map((reply) => reply.replaceAll(viaCommand, viaResident)));
    const state = hookState(viaResident);
    expect(state.entries.map((e) => e.topic)).toEqual(hookState(viaCommand).entries.map((e) => e.topic));
    expect(state.sessions).toMatchObject([{ agent: 'claude', session_id: 's1', project_dir: viaResident }]);
  });

  it('loses no update when a session’s hook calls arrive at once', async () => {
    const { config } = await residentServer();
    const project = tempProject();
    await Promise.all(Array.from({ length: 20 }, (_, n) => post(config, echoCall(project, n))));
    expect(hookState(project).sessions).toMatchObject([{ steps: 40 }]);
  });

  it('stays silent for a session started with LOOPGUARD_HOOK=off, and fails open on a malformed event', async () => {
    const { config } = await residentServer();
    const project = tempProject();
    await residentRequest(config, 'POST', '/sessions', {
      sessionId: 'off',
      projectDir: project,
      enabled: false,
    });
    for (const n of [1, 2, 3, 4])
      expect(await post(config, claudeFailingCall(project, 'off', n).post)).toBe('');
    expect(hookLog(project)).toEqual([]);
    await residentRequest(config, 'POST', '/sessions', {
      sessionId: 's2',
      projectDir: project,
      enabled: true,
    });
    expect(await post(config, { session_id: 's2', hook_event_name: 'PostToolUse' })).toBe('');
    expect(hookLog(project)).toEqual([
      expect.stringMatching(/claude: failed open: event field tool_name must be a non-empty string$/),
    ]);
  });

  it('exits when no session is left: its Claude Code gone, or SessionEnd', async () => {
    const { config, server, log } = await residentServer(20);
    const project = tempProject();
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    await residentRequest(config, 'POST', '/sessions', {
      sessionId: 'a',
      projectDir: project,
      pid: child.pid,
      enabled: true,
    });
    await residentRequest(config, 'POST', '/sessions', {
      sessionId: 'b',
      projectDir: project,
      enabled: true,
    });
    await post(config, claudeEvent(project, 'b', 'SessionEnd', { reason: 'other' }));
    expect(await (await residentRequest(config, 'GET', '/health')).json()).toMatchObject({ sessions: 1 });
    child.kill('SIGKILL');
    await server.closed;
    expect(log.at(-1)).toBe('no session left; exiting');
  });

  it('loopguard resident start (the SessionStart hook) starts it in the background and registers the session; stop ends it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopguard-resident-home-'));
    const config = await ensureResidentConfig(home);
    const project = tempProject();
    const start = await execa(process.execPath, [bin, 'resident', 'start'], {
      cwd: project,
      reject: false,
      env: { HOME: home, CLAUDE_PROJECT_DIR: project },
      input: JSON.stringify(claudeEvent(project, 's1', 'SessionStart', { source: 'startup' })),
    });
    try {
      expect(start).toMatchObject({ exitCode: 0, stdout: '' });
      expect(hookLog(project)).toEqual([]);
      const health = (await (await residentRequest(config, 'GET', '/health')).json()) as {
        pid: number;
        sessions: number;
      };
      expect(health.sessions).toBe(1);
      expect(health.pid).not.toBe(process.pid);
    } finally {
      const stop = await loopguard(project, ['resident', 'stop'], { HOME: home });
      expect(stop.stdout).toContain('stopped the resident process');
    }
    await expect(residentRequest(config, 'GET', '/health')).rejects.toThrow();
  });
});

describe('the resident process’s open databases', () => {
  it('keeps a project’s connection between events, and sees a database replaced or removed under it as a hook process would', async () => {
    const { config } = await residentServer();
    const project = tempProject();
    const call = (n: number) => post(config, echoCall(project, n));
    await call(1);
    await call(2);
    expect(hookState(project).sessions).toMatchObject([{ steps: 4 }]);
    // replaced by garbage: the next event fails open with the hook's own line
    const db = join(project, '.loopguard', 'state.db');
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    rmSync(db);
    writeFileSync(db, 'garbage\n');
    expect(await call(3)).toBe('');
    expect(hookLog(project)).toEqual([expect.stringMatching(/failed open: .*state\.db/)]);
    // removed: created afresh, the session starts again
    rmSync(db);
    await call(4);
    expect(hookState(project).sessions).toMatchObject([{ steps: 2 }]);
  });
});
