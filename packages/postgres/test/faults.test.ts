import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigurationError, StorageError } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../src/index.js';
import { freshSchema, openFresh, useCluster } from './cluster.js';

/** The fault paths of the PostgreSQL adapter: each ends in a typed error, none crashes the process. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL faults', () => {
  const cluster = useCluster();

  it('a connection terminated while checked out (between two statements) is a typed error, not a crash', async () => {
    const storage = await openFresh(cluster());
    const killer = await openPostgresStorage({
      connectionString: cluster().connectionString,
      migrate: false,
    });
    const failure = await rejection(
      storage.transaction(async (tx) => {
        await tx.stateMachine.upsertTask({ id: 'T1' });
        await killer.pool.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' AND pid <> pg_backend_pid()",
        );
        await sleep(300); // the server's termination reaches the idle client: an 'error' event
        return tx.stateMachine.getTask('T1');
      }),
    );
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).code).toBe('storage_unavailable');
    expect(await storage.stateMachine.getTask('T1')).toBeUndefined(); // rolled back
    await storage.stateMachine.upsertTask({ id: 'T2' }); // the pool goes on with a new connection
    expect(await storage.stateMachine.getTask('T2')).toMatchObject({ id: 'T2' });
    await killer.close();
    await storage.close();
  });

  it('a statement past statement_timeout is storage_error (the server and the connection are fine)', async () => {
    const storage = await openFresh(cluster(), { statementTimeoutMs: 200 });
    let release: () => void = () => undefined;
    const held = storage.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      { lockKey: 'T1' },
    );
    await sleep(100);
    const waiting = await rejection(storage.transaction(async () => undefined, { lockKey: 'T1' }));
    release();
    await held;
    expect(waiting).toBeInstanceOf(StorageError);
    expect((waiting as StorageError).code).toBe('storage_error');
    expect((waiting as Error).message).toMatch(/statement timeout/);
    await storage.close();
  });

  it('a full pool is storage_unavailable once connectionTimeoutMs has passed', async () => {
    const storage = await openFresh(cluster(), { max: 1, connectionTimeoutMs: 200 });
    let release: () => void = () => undefined;
    const held = storage.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    await sleep(50);
    const read = await rejection(storage.stateMachine.listTasks());
    const inTransaction = await rejection(storage.transaction(async () => undefined));
    release();
    await held;
    for (const error of [read, inTransaction]) {
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('storage_unavailable');
      expect((error as Error).message).toMatch(/no free connection in the pool/);
    }
    expect(await storage.stateMachine.listTasks()).toEqual([]);
    await storage.close();
  });

  it('an unknown role or database is a ConfigurationError, not a temporary failure', async () => {
    const url = new URL(cluster().connectionString);
    const badRole = new URL(url);
    badRole.username = 'nobody_here';
    const badDatabase = new URL(url);
    badDatabase.pathname = '/no_such_database';
    for (const connectionString of [badRole.href, badDatabase.href]) {
      const error = await rejection(openPostgresStorage({ connectionString, schema: freshSchema() }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/check the user, password and database name/);
    }
  });

  it('a server restart while 6 worker processes are busy: no crash, only typed errors, no acknowledged attempt lost', async () => {
    const schema = freshSchema();
    const setup = await openPostgresStorage({ connectionString: cluster().connectionString, schema });
    for (let i = 0; i < 5; i++) await setup.stateMachine.upsertTask({ id: `T${i}` });
    await setup.close();
    const fixture = fileURLToPath(new URL('./fixtures/restartWorker.mjs', import.meta.url));
    const workers = Array.from({ length: 6 }, (_, w) => {
      const child = spawn(process.execPath, [fixture, cluster().connectionString, schema, `w${w}`], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lines = () =>
        stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      return { child, exited, lines, stderr: () => stderr };
    });
    const acks = (w: (typeof workers)[number]) => w.lines().filter((l) => 'ack' in l).length;
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 400 && !done(); i++) await sleep(50);
    };
    await until(() => workers.every((w) => acks(w) >= 5)); // all six busy
    await cluster().stop();
    await sleep(500);
    await cluster().startServer();
    const before = workers.map(acks);
    await until(() => workers.every((w, i) => acks(w) >= (before[i] as number) + 5)); // all six went on
    for (const w of workers) w.child.stdin.end('stop\n');
    const codes = await Promise.all(workers.map((w) => w.exited));

    const lines = workers.flatMap((w) => w.lines());
    expect(workers.map((w) => w.stderr())).toEqual(['', '', '', '', '', '']);
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    expect(lines.filter((l) => 'done' in l)).toHaveLength(6);
    expect(lines.filter((l) => 'untyped' in l)).toEqual([]);
    const typed = lines.filter((l) => 'typed' in l).map((l) => l.typed);
    expect(typed.length).toBeGreaterThan(0); // the restart was seen
    expect(new Set(typed)).toEqual(
      new Set(typed.filter((c) => c === 'storage_unavailable' || c === 'storage_error')),
    );
    const acked = lines.filter((l) => 'ack' in l).map((l) => l.ack as string);
    const storage = await openPostgresStorage({ connectionString: cluster().connectionString, schema });
    const stored = new Set<string>();
    for (let i = 0; i < 5; i++)
      for (const a of await storage.attempts.listSince(`T${i}`, 0)) stored.add(a.sessionId);
    expect(acked.filter((id) => !stored.has(id))).toEqual([]);
    expect(workers.map(acks).every((n, i) => n >= (before[i] as number) + 5)).toBe(true);
    await storage.close();
  }, 60_000);
});
