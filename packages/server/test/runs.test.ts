import { SqliteRunStore } from '@loopguard/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { waitForEvent } from './helpers.js';
import { type TestStore, useStores } from './stores.js';

// `loopguard run` keeps its runs in SQLite only (the PostgreSQL schema has no run tables).
const openStore = useStores(['sqlite']);
let ctx: TestStore;
let server: RunningStatusServer;

function database() {
  if (ctx.database === undefined) throw new Error('a SQLite store was expected');
  return ctx.database;
}

async function start(extra: Partial<Parameters<typeof startStatusServer>[0]> = {}): Promise<string> {
  server = await startStatusServer({
    reader: ctx.reader,
    port: 0,
    clock: ctx.clock,
    followIntervalMs: 20,
    ...extra,
  });
  return server.url;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, checked by the assertions
async function getJson(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(path, server.url));
  return { status: response.status, body: await response.json() };
}

beforeEach(async () => {
  ctx = await openStore('sqlite');
});
afterEach(async () => {
  await server?.close();
  await ctx.cleanup();
});

describe('the newest loopguard run', () => {
  it('shows the breaker of the newest loopguard run when the file has runs (schema 4), live', async () => {
    const runs = new SqliteRunStore({ db: database().db, clock: ctx.clock });
    const run = (id: string) => runs.createRun({ id, command: ['agent'], options: {}, cwd: '.' });
    run('old');
    runs.updateRun('old', { status: 'completed' });
    ctx.clock.advance(1000);
    run('r2');
    ctx.clock.advance(1000);
    const at = ctx.clock.now();
    runs.appendTransition({ runId: 'r2', at, from: 'CLOSED', to: 'OPEN', reason: 'no file changes' });
    runs.updateRun('r2', { status: 'paused', reason: 'no file changes in 3 iterations' });
    await start();
    const { body } = await getJson('/status');
    expect(body.breaker).toEqual({
      state: 'OPEN',
      runId: 'r2',
      runStatus: 'paused',
      statusText: 'paused',
      reason: 'no file changes in 3 iterations',
      updatedAt: at,
    });
    expect(await (await fetch(new URL('/metrics', server.url))).text()).toContain(
      'loopguard_breaker_state 2',
    );
    const event = await waitForEvent(
      new URL('/events', server.url).href,
      (name) => name === 'breakerStateChanged',
      {},
      () =>
        runs.appendTransition({
          runId: 'r2',
          at: at + 1,
          from: 'OPEN',
          to: 'HALF_OPEN',
          reason: 'cooldown over',
        }),
    );
    expect(event.data).toMatchObject({
      runId: 'r2',
      from: 'OPEN',
      state: 'HALF_OPEN',
      reason: 'cooldown over',
    });
    expect((await getJson('/status')).body.breaker.state).toBe('HALF_OPEN');
    expect(await (await fetch(new URL('/metrics', server.url))).text()).toContain(
      'loopguard_breaker_state 1',
    );
  });

  it('shows the run state its store reports, interrupted included', async () => {
    const runs = new SqliteRunStore({ db: database().db, clock: ctx.clock });
    runs.createRun({ id: 'r9', command: ['agent'], options: {}, cwd: '.' });
    runs.updateRun('r9', { status: 'interrupted', reason: 'the owner process is gone' });
    await start({ cacheMs: 0 });
    const { body } = await getJson('/status');
    expect(body.breaker).toMatchObject({
      state: 'CLOSED',
      runId: 'r9',
      runStatus: 'interrupted',
      reason: 'the owner process is gone',
    });
  });
});
