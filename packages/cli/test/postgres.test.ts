import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SharedLoopDetector } from '@loopguard/core';
import {
  migratePostgres,
  openPostgresStorage,
  PG_MIGRATIONS,
  type PostgresStorage,
} from '@loopguard/postgres';
import { ThrowawayCluster } from '@loopguard/postgres/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ARGV_PASSWORD_WARNING } from '../src/commands/openStatusReader.js';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo, dashboardAccess } from './helpers.js';
import { claudeFailingCall, hookCall } from './hookHelpers.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'loopguard-cli-pg-'));
let cluster: ThrowawayCluster;
let storage: PostgresStorage;
let detector: SharedLoopDetector;

/** Records four attempts on a done task and recovers the completed-task revisit. */
async function causeRevisit(taskId: string): Promise<void> {
  for (let i = 0; i < 4; i++) await detector.recordAttempt(taskId, 'done', [], [`check ${i}`], `worker-${i}`);
  const loop = await detector.detectLoop(taskId);
  await detector.applyRecovery(loop);
}

beforeAll(async () => {
  cluster = await ThrowawayCluster.start();
  storage = await openPostgresStorage({ connectionString: cluster.connectionString, schema: 'fleet' });
  detector = new SharedLoopDetector(storage);
  for (const id of ['T1', 'T2', 'T3']) await storage.stateMachine.upsertTask({ id, status: 'in_progress' });
  await causeRevisit('T1');
}, 120_000);
afterAll(async () => {
  await storage?.close();
  await cluster?.destroy();
  rmSync(cwd, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferedIo({ cwd });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

function expectOneLineError(result: { code: number; err: string }, message: string): void {
  expect(result.code).toBe(EXIT_CODES.usage);
  expect(result.err.trim().split('\n')).toHaveLength(1);
  expect(result.err).toContain(message);
}

/** Starts `loopguard serve` and resolves with the child and the line it prints. */
function startServe(
  args: string[],
  dir = cwd,
): Promise<{ child: ChildProcess; url: string; auth: { headers: Record<string, string> }; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: dir });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /loopguard dashboard: (http:\S+).*\n(?:this project.*\n)?/.exec(out);
      if (match?.[1]) resolve({ child, ...dashboardAccess(match[1]), line: match[0] });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

/** Reads `/events` until a `recoveryApplied` event arrives, after `write` ran. */
async function nextRecovery(
  url: string,
  auth: { headers: Record<string, string> },
  write: () => Promise<void>,
): Promise<{ taskId: string }> {
  const controller = new AbortController();
  const response = await fetch(new URL('/events', url), { ...auth, signal: controller.signal });
  if (response.body === null) throw new Error('no event stream');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  await write();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('event stream ended');
      buffer += value;
      const match = /event: recoveryApplied\ndata: (.*)\n/.exec(buffer);
      if (match?.[1]) return JSON.parse(match[1]) as { taskId: string };
    }
  } finally {
    controller.abort();
  }
}

describe('loopguard serve --postgres', () => {
  it("serves the fleet's dashboard, streams recoveries other workers write, and exits 0 on SIGTERM", async () => {
    const { child, url, auth, line } = await startServe([
      '--postgres',
      cluster.connectionString,
      '--schema',
      'fleet',
      '--port',
      '0',
    ]);
    const exited = new Promise((done) => child.on('exit', done));
    // a failed expectation must not leave the server running: it is ended in any case
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    // two schemas of one database are two stores: the line says which was read
    expect(line).toContain(`(reading ${cluster.connectionString}, schema fleet;`);
    const status = (await (await fetch(new URL('/status', url), auth)).json()) as {
      page: { total: number };
      tasks: { id: string; lastRecovery: string | null }[];
    };
    expect(status.page.total).toBe(3);
    expect(status.tasks.find((t) => t.id === 'T1')?.lastRecovery).toBe('loop_recovery');
    expect((await fetch(url, auth)).status).toBe(200);
    const event = await nextRecovery(url, auth, () => causeRevisit('T2'));
    expect(event.taskId).toBe('T2');
    const metrics = await (await fetch(new URL('/metrics', url), auth)).text();
    expect(metrics).toContain('loopguard_recoveries_total{action="force_next"} 2');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('reads the connection string from serve.postgres in the configuration file', async () => {
    const dir = mkdtempSync(join(cwd, 'config-'));
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      `run:\n  max-iterations: 3\nhook:\n  enabled: false\nserve:\n  postgres: ${cluster.connectionString}\n  schema: fleet\n`,
    );
    const io = bufferedIo({ cwd: dir });
    expect(await runCli(['status', '--json'], io)).toBe(EXIT_CODES.ok);
    expect(JSON.parse(io.out()).page.total).toBe(3);
    // a fleet's store is no project's: this folder's off switch says nothing of its sessions
    expect(JSON.parse(io.out())).not.toHaveProperty('hooksOff');
  });

  it("in a project whose config names serve.postgres, status says where the project's hook sessions are", async () => {
    const dir = mkdtempSync(join(cwd, 'project-'));
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      `serve:\n  postgres: ${cluster.connectionString}\n  schema: fleet\n`,
    );
    expect((await hookCall(dir, 'claude', claudeFailingCall(dir, 's1', 1).pre)).code).toBe(0);
    const own = join(dir, '.loopguard', 'state.db');
    const status = bufferedIo({ cwd: dir });
    expect(await runCli(['status'], status)).toBe(EXIT_CODES.ok);
    expect(status.out()).toContain(`database: ${cluster.connectionString}, schema fleet\n`);
    expect(status.out()).toContain(
      `this project's hook sessions are not in this store: loopguard status --db ${own}`,
    );
    const session = bufferedIo({ cwd: dir });
    expect(await runCli(['status', '--session', 's1'], session)).toBe(EXIT_CODES.usage);
    expect(session.err().trim().split('\n')).toHaveLength(1);
    expect(session.err()).toContain(`(this project's hook sessions: loopguard status --db ${own})`);
    const serving = await startServe(['--port', '0'], dir);
    onTestFinished(() => {
      serving.child.kill('SIGTERM');
    });
    expect(serving.line).toContain(
      `this project's hook sessions are not in this store: loopguard serve --db ${own}`,
    );
    // the flag names the store: no word of the project's
    const flagged = await run(['status', '--postgres', cluster.connectionString, '--schema', 'fleet']);
    expect(flagged.out).not.toContain("this project's hook sessions");
  });

  it('a store serve.postgres names that cannot be read is said by its place in the config file', async () => {
    const dir = mkdtempSync(join(cwd, 'down-'));
    const config = join(dir, 'loopguard.config.yaml');
    writeFileSync(config, 'serve:\n  postgres: postgres://u:s3cret@127.0.0.1:1/agents\n');
    expect((await hookCall(dir, 'claude', claudeFailingCall(dir, 's1', 1).pre)).code).toBe(0);
    const down = bufferedIo({ cwd: dir });
    const code = await runCli(['status'], down);
    expectOneLineError(
      { code, err: down.err() },
      `serve.postgres postgres://u:***@127.0.0.1:1/agents (in ${config}): cannot connect to PostgreSQL`,
    );
    expect(down.err()).not.toContain('--postgres');
    expect(down.err()).toContain(
      `(this project's hook sessions: loopguard status --db ${join(dir, '.loopguard', 'state.db')})`,
    );
    writeFileSync(config, `serve:\n  postgres: ${cluster.connectionString}\n  schema: nothing_here\n`);
    const noTables = bufferedIo({ cwd: dir });
    expect(await runCli(['recoveries'], noTables)).toBe(EXIT_CODES.usage);
    expect(noTables.err()).toContain('(no loopguard tables in this schema: check serve.schema)');
  });

  it('status and recoveries read a PostgreSQL fleet too', async () => {
    const status = await run(['status', '--postgres', cluster.connectionString, '--schema', 'fleet']);
    expect(status.code).toBe(EXIT_CODES.ok);
    expect(status.out).toContain('tasks (orchestrator): 3');
    expect(status.out).toMatch(/T1\s+\| done\s+\| 0\s+\| -\s+\| force next/);
    const recoveries = await run([
      'recoveries',
      '--postgres',
      cluster.connectionString,
      '--schema',
      'fleet',
      '--task',
      'T1',
      '--json',
    ]);
    expect(JSON.parse(recoveries.out).recoveries.map((r: { action: string }) => r.action)).toEqual([
      'force_next',
    ]);
  });

  it('pg68: a schema its workers have not migrated since an upgrade is said in one line, not an internal error', async () => {
    const old = await openPostgresStorage({
      connectionString: cluster.connectionString,
      schema: 'old6',
      migrate: false,
    });
    const client = await old.pool.connect();
    await migratePostgres(client, 'old6', PG_MIGRATIONS.slice(0, 6));
    client.release();
    await old.close();
    expectOneLineError(
      await run(['status', '--postgres', cluster.connectionString, '--schema', 'old6']),
      `written by an earlier loopguard (PostgreSQL schema version 6; this one reads ${PG_MIGRATIONS.length}): the next worker that opens it`,
    );
  });

  it('reports a schema without loopguard tables and an unreachable server in one line, password hidden', async () => {
    expectOneLineError(
      await run(['serve', '--postgres', cluster.connectionString, '--schema', 'nothing_here', '--port', '0']),
      'no loopguard tables in this schema: check --schema',
    );
    const given = await run(['status', '--postgres', 'postgres://u:s3cret@127.0.0.1:1/agents']);
    // a password on the command line is said first, in a line of its own (trust42)
    const [warning, ...error] = given.err.split('\n');
    expect(warning).toBe(ARGV_PASSWORD_WARNING.trim());
    const unreachable = { ...given, err: error.join('\n') };
    expectOneLineError(
      unreachable,
      '--postgres postgres://u:***@127.0.0.1:1/agents: cannot connect to PostgreSQL (connect ECONNREFUSED 127.0.0.1:1): check that the server is running and that the host and port are right',
    );
    expect(unreachable.err).not.toContain('s3cret');
    // a schema PostgreSQL cannot name is the schema's fault, not the connection string's
    const badSchema = await run(['status', '--postgres', cluster.connectionString, '--schema', 'a;drop']);
    expectOneLineError(badSchema, 'loopguard: --schema a;drop: ');
    expect(badSchema.err).toContain('must be a lower-case SQL identifier');
    // the library's advice is for a process that keeps its storage open, not for one command
    expect(unreachable.err).not.toContain('reconnects');
  });
});
