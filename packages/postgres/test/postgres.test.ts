import { type Attempt, InvalidInputError, SharedLoopDetector, StorageError } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { PgStatusReader } from '../src/index.js';
import { openFresh, useCluster } from './cluster.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('PostgresStorage against a real server', () => {
  const cluster = useCluster();

  it('a server restart surfaces as StorageError storage_unavailable, and the next call reconnects', async () => {
    const storage = await openFresh(cluster(), { connectionTimeoutMs: 2000 });
    const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
    await detector.recordAttempt('T1', 'done', [], [], 'before');
    await cluster().stop();
    try {
      const down = await rejection(detector.recordAttempt('T1', 'done', [], [], 'while down'));
      expect(down).toBeInstanceOf(StorageError);
      expect((down as StorageError).code).toBe('storage_unavailable');
      const read = await rejection(storage.stateMachine.listTasks());
      expect((read as StorageError).code).toBe('storage_unavailable');
    } finally {
      await cluster().startServer();
    }
    await detector.recordAttempt('T1', 'done', [], [], 'after');
    expect((await storage.attempts.listSince('T1', 0)).map((a) => a.sessionId)).toEqual(['before', 'after']);
    await storage.close();
  });

  it('a connection dropped between calls (server restart while idle) is replaced on the next call', async () => {
    const storage = await openFresh(cluster());
    await storage.stateMachine.upsertTask({ id: 'T1' });
    await cluster().stop();
    await cluster().startServer();
    // the idle connection died with the server; the first call may see it, the pool then reconnects
    const first = await storage.stateMachine.getTask('T1').catch((error: unknown) => error);
    if (first instanceof Error) expect((first as StorageError).code).toBe('storage_unavailable');
    else expect(first).toMatchObject({ id: 'T1' });
    expect(await storage.stateMachine.getTask('T1')).toMatchObject({ id: 'T1' });
    await storage.close();
  });

  it('rejects text PostgreSQL cannot store (NUL) with InvalidInputError, writing nothing', async () => {
    const storage = await openFresh(cluster());
    const error = await rejection(storage.stateMachine.upsertTask({ id: 'T\u00001' }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/NUL/);
    const inJson = await rejection(
      storage.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 't',
        content: 'c',
        metadata: { k: 'a\u0000b' },
      }),
    );
    expect(inJson).toBeInstanceOf(InvalidInputError);
    expect(await storage.stateMachine.listTasks()).toEqual([]);
    expect(await storage.stateMachine.listContextEntries()).toEqual([]);
    await storage.close();
  });

  it('a transaction on a lock key waits for the one holding it, across connections', async () => {
    const storage = await openFresh(cluster(), { max: 4 });
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const first = storage.transaction(
      async () => {
        order.push('first in');
        entered();
        await held;
        order.push('first out');
      },
      { lockKey: 'T1' },
    );
    await inside;
    const second = storage.transaction(
      async () => {
        order.push('second');
      },
      { lockKey: 'T1' },
    );
    const other = storage.transaction(
      async () => {
        order.push('other key');
      },
      { lockKey: 'T2' },
    );
    await other;
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'other key', 'first out', 'second']);
    await storage.close();
  });

  it('recordAttempt is one autocommit statement: no connection checked out, no BEGIN or COMMIT', async () => {
    const storage = await openFresh(cluster());
    const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
    const sent: string[] = [];
    let checkouts = 0;
    let inQuery = false;
    const { pool } = storage;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((config: { text: string }, ...rest: unknown[]) => {
      sent.push(config.text);
      inQuery = true;
      try {
        return query(config, ...rest);
      } finally {
        inQuery = false;
      }
    }) as typeof pool.query;
    pool.connect = ((...args: unknown[]) => {
      if (!inQuery) checkouts += 1;
      return connect(...args);
    }) as typeof pool.connect;
    const recorded = await detector.recordAttempt('T1', 'blocked', ['no token'], [], 'w1');
    expect(checkouts).toBe(0);
    expect(sent).toEqual(['SELECT loopguard_append_attempt($1, $2, $3, $4, $5, $6, $7, $8) AS stored']);
    expect(await storage.attempts.listSince('T1', 0)).toEqual([recorded]);
    await storage.close();
  });

  it('every value that could carry NUL is an InvalidInputError naming it, before anything is sent', async () => {
    const storage = await openFresh(cluster());
    const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
    const reader = new PgStatusReader(storage);
    const sent: string[] = [];
    const query = storage.pool.query.bind(storage.pool) as (...args: unknown[]) => unknown;
    storage.pool.query = ((config: { text: string }, ...rest: unknown[]) => {
      sent.push(config.text);
      return query(config, ...rest);
    }) as typeof storage.pool.query;
    const nul = 'a\u0000b';
    const attempt: Attempt = {
      taskId: 'T1',
      timestamp: 1,
      status: 'done',
      blockers: [],
      completedWork: [nul],
      sessionId: '',
    };
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => detector.recordAttempt(nul, 'done', [], []), /attempt\.taskId contains the NUL/],
      [
        () => detector.recordAttempt('T1', 'blocked', ['ok', nul], []),
        /attempt\.blockers\[1\] contains the NUL/,
      ],
      [() => detector.recordAttempt('T1', 'done', [], [], nul), /attempt\.sessionId contains the NUL/],
      [() => detector.detectLoop(nul), /taskId contains the NUL/],
      [() => storage.attempts.append(attempt), /attempt\.completedWork\[0\] contains/],
      [() => storage.attempts.appendMany([attempt]), /attempts\[0\]\.completedWork\[0\] contains/],
      [() => storage.attempts.clear(nul), /taskId contains/],
      [() => storage.attempts.summarizePage(0, { limit: 1, cursor: nul }), /query\.cursor contains/],
      [() => storage.stateMachine.getTask(nul), /taskId contains/],
      [
        () => storage.stateMachine.upsertTask({ id: 'T1', metadata: { [nul]: 1 } }),
        /input\.metadata\["a\\u0000b"\] \(the key\)/,
      ],
      [() => storage.stateMachine.transition('T1', 'done', nul), /reason contains/],
      [() => storage.stateMachine.listTaskEvents(nul), /taskId contains/],
      [
        () =>
          storage.stateMachine.addContextEntry({
            entryType: 'learning',
            topic: 't',
            content: 'c',
            relatedTasks: [nul],
          }),
        /input\.relatedTasks\[0\] contains/,
      ],
      [() => storage.stateMachine.listContextEntries({ topics: [nul] }), /query\.topics\[0\] contains/],
      [() => reader.recoveryPage({ limit: 10, taskId: nul }), /taskId contains/],
    ];
    for (const [call, message] of cases) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(message);
    }
    expect(sent).toEqual([]);
    expect(await storage.attempts.summarize(0)).toEqual(new Map());
    await storage.close();
  });
});
