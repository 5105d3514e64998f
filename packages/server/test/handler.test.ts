import { request } from 'node:http';
import { ConfigurationError } from '@loopguard/core';
import { SqliteRunStore } from '@loopguard/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, type RunningStatusServer, startStatusServer } from '../src/index.js';
import { causeBlockedSpin, causeRevisit, tempDatabase, waitForEvent } from './helpers.js';

let ctx: ReturnType<typeof tempDatabase>;
let server: RunningStatusServer;

async function start(extra: Partial<Parameters<typeof startStatusServer>[0]> = {}): Promise<string> {
  server = await startStatusServer({
    database: ctx.database,
    port: 0,
    clock: ctx.clock,
    followIntervalMs: 20,
    ...extra,
  });
  return server.url;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, checked by the assertions
async function getJson(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(path, server.url), init);
  return { status: response.status, body: await response.json() };
}

/** A raw request, for what fetch cannot send (a Host header, huge headers). */
function raw(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeEach(() => {
  ctx = tempDatabase();
});
afterEach(async () => {
  await server?.close();
  ctx.cleanup();
});

describe('GET /status', () => {
  it("has the seed's shape: running, tickCount, loopDetection { attemptCount, lastAttempt }", async () => {
    const sm = ctx.database.stateMachine;
    sm.upsertTask({ id: 'T3.4.2', title: 'Dashboard', status: 'in_progress' });
    sm.upsertTask({ id: 'T7.1.2', title: 'Config', status: 'in_progress' });
    ctx.detector.recordAttempt('T3.4.2', 'in_progress', [], ['a'], 's1');
    ctx.clock.advance(1000);
    ctx.detector.recordAttempt('T3.4.2', 'in_progress', [], ['b'], 's2');
    const lastAttempt = ctx.clock.now();
    await start();
    const { status, body } = await getJson('/status');
    expect(status).toBe(200);
    expect(body.running).toBe(true);
    expect(body.tickCount).toBe(2);
    expect(body.loopDetection).toEqual({ 'T3.4.2': { attemptCount: 2, lastAttempt } });
    expect(body.tasks.map((t: { id: string }) => t.id)).toEqual(['T3.4.2', 'T7.1.2']);
    expect(body.page).toEqual({ limit: 2, total: 2, nextCursor: null });
    expect(body).not.toHaveProperty('breaker');
  });

  it('counts only attempts inside the window', async () => {
    ctx.database.stateMachine.upsertTask({ id: 'T1', status: 'in_progress' });
    ctx.detector.recordAttempt('T1', 'in_progress', [], ['a'], 's1');
    ctx.clock.advance(2 * 3_600_000);
    await start({ attemptWindowMs: 3_600_000 });
    const { body } = await getJson('/status');
    expect(body.tasks[0]).toMatchObject({ id: 'T1', attemptCount: 0, lastAttempt: null });
    expect(body.loopDetection).toEqual({});
    expect(body.running).toBe(false);
  });

  it('pages with limit and cursor, with the total', async () => {
    for (let i = 0; i < 250; i++)
      ctx.database.stateMachine.upsertTask({ id: `T${String(i).padStart(3, '0')}`, status: 'pending' });
    await start();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const { body } = await getJson(`/status?limit=100${query}`);
      expect(body.page.total).toBe(250);
      seen.push(...body.tasks.map((t: { id: string }) => t.id));
      cursor = body.page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(seen[0]).toBe('T000');
    expect(seen[249]).toBe('T249');
  });

  it("shows each task's newest recovery", async () => {
    ctx.database.stateMachine.upsertTask({ id: 'T3.4.3', status: 'in_progress' });
    await causeBlockedSpin(ctx.detector, ctx.clock, 'T3.4.3');
    await start();
    const { body } = await getJson('/status');
    expect(body.tasks[0]).toMatchObject({ id: 'T3.4.3', lastRecovery: 'unblock_authority' });
  });

  it('shows the breaker state when a breaker source is given', async () => {
    await start({ breaker: () => ({ state: 'OPEN', reason: 'no progress' }) });
    const { body } = await getJson('/status');
    expect(body.breaker).toEqual({ state: 'OPEN', reason: 'no progress' });
  });

  it('shows the breaker of the newest loopguard run when the file has runs (schema 4), live', async () => {
    const runs = new SqliteRunStore({ db: ctx.database.db, clock: ctx.clock });
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

  it('takes running, tickCount and guards from a live loop', async () => {
    const loop = {
      getStatus: () => ({ running: true, tickCount: 45, guards: { checks: 3, blocked: 1 } }),
      on: () => undefined,
      off: () => undefined,
    };
    await start({ loop });
    const { body } = await getJson('/status');
    expect(body).toMatchObject({
      running: true,
      tickCount: 45,
      guards: { checks: 3, blocked: 1 },
      source: 'loop',
    });
  });

  it('reuses an answer for cacheMs while the database is unchanged, and not after a write', async () => {
    ctx.database.stateMachine.upsertTask({ id: 'T1', status: 'in_progress' });
    await start({ cacheMs: 1000 });
    const first = (await getJson('/status')).body;
    ctx.clock.advance(500);
    expect((await getJson('/status')).body.generatedAt).toBe(first.generatedAt);
    ctx.clock.advance(600);
    const expired = (await getJson('/status')).body;
    expect(expired.generatedAt).toBe(first.generatedAt + 1100);
    ctx.detector.recordAttempt('T1', 'in_progress', [], ['a'], 's1');
    const changed = (await getJson('/status')).body;
    expect(changed.tasks[0].attemptCount).toBe(1);
    expect(changed.generatedAt).toBe(expired.generatedAt);
    await server.close();
    await start({ cacheMs: 0 });
    ctx.clock.advance(1);
    const uncached = (await getJson('/status')).body;
    ctx.clock.advance(1);
    expect((await getJson('/status')).body.generatedAt).toBe(uncached.generatedAt + 1);
  });

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 1000, got "0"'],
    ['limit=1001', 'limit must be an integer from 1 to 1000'],
    ['limit=abc', 'limit must be an integer'],
    ['limit=1&limit=2', 'limit is given twice'],
    ['cursor=nonsense', 'cursor is not valid'],
    ['sort=id', 'unknown query parameter "sort"'],
  ])('rejects %s with 400 and a message', async (query, message) => {
    await start();
    const { status, body } = await getJson(`/status?${query}`);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
  });
});

describe('GET /recoveries', () => {
  beforeEach(async () => {
    for (const id of ['A', 'B', 'C']) ctx.database.stateMachine.upsertTask({ id, status: 'in_progress' });
    await causeBlockedSpin(ctx.detector, ctx.clock, 'A');
    await causeRevisit(ctx.detector, ctx.clock, 'B');
    await causeBlockedSpin(ctx.detector, ctx.clock, 'C');
  });

  it('lists recoveries newest first with their evidence', async () => {
    await start();
    const { status, body } = await getJson('/recoveries');
    expect(status).toBe(200);
    expect(body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['C', 'B', 'A']);
    expect(body.recoveries[1]).toMatchObject({
      topic: 'loop_recovery',
      action: 'force_next',
      loopType: 'completed_task_revisit',
      attemptCount: 4,
    });
    expect(body.recoveries[0].content).toContain('UNBLOCK AUTHORITY GRANTED: Task C');
    expect(body.recoveries[0].metadata.evidence).toHaveLength(3);
    expect(body.nextCursor).toBeNull();
  });

  it('filters by topic, task and time', async () => {
    await start();
    const byTopic = await getJson('/recoveries?topic=unblock_authority');
    expect(byTopic.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['C', 'A']);
    const byTask = await getJson('/recoveries?task=B');
    expect(byTask.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['B']);
    const all = (await getJson('/recoveries')).body.recoveries;
    const since = await getJson(`/recoveries?since=${all[1].timestamp}`);
    expect(since.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['C', 'B']);
    const until = await getJson(`/recoveries?until=${all[1].timestamp}`);
    expect(until.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['A']);
    const iso = await getJson(`/recoveries?since=${new Date(all[0].timestamp).toISOString()}`);
    expect(iso.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['C']);
  });

  it('pages with a cursor', async () => {
    await start();
    const first = await getJson('/recoveries?limit=2');
    expect(first.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['C', 'B']);
    const second = await getJson(`/recoveries?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.recoveries.map((r: { taskId: string }) => r.taskId)).toEqual(['A']);
    expect(second.body.nextCursor).toBeNull();
  });

  it.each([
    ['topic=other', 'topic must be one of loop_recovery, unblock_authority, loop_escalation'],
    ['since=yesterday', 'since must be epoch milliseconds or an ISO date, got "yesterday"'],
    ['until=2025-13-45', 'until must be epoch milliseconds or an ISO date'],
    ['task=', 'task must be 1 to 512 characters'],
    ['cursor=WyJ4Il0', 'cursor is not valid'],
  ])('rejects %s with 400', async (query, message) => {
    await start();
    const { status, body } = await getJson(`/recoveries?${query}`);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
  });
});

describe('GET /metrics', () => {
  it('exports attempts, loops by type and recoveries by action, counting what the file held at start', async () => {
    ctx.database.stateMachine.upsertTask({ id: 'A', status: 'in_progress' });
    await causeBlockedSpin(ctx.detector, ctx.clock, 'A'); // the recovery clears A's 3 attempts
    ctx.detector.recordAttempt('B', 'in_progress', [], ['x'], 's');
    await start();
    await waitForEvent(
      new URL('/events', server.url).href,
      (name) => name === 'attemptsRecorded',
      {},
      () => {
        ctx.detector.recordAttempt('B', 'in_progress', [], ['y'], 's');
        ctx.detector.recordAttempt('B', 'in_progress', [], ['z'], 's');
      },
    );
    const response = await fetch(new URL('/metrics', server.url));
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('loopguard_attempts_recorded_total 3');
    expect(text).toContain('loopguard_loops_detected_total{loop_type="blocked_task_spin"} 1');
    expect(text).toContain('loopguard_recoveries_total{action="unblock_authority"} 1');
    expect(text).toContain('# TYPE loopguard_tick_duration_seconds histogram');
    expect(text).toContain('# TYPE loopguard_breaker_state gauge');
  });

  it('counts what a live emitter reports: ticks, guard triggers, breaker changes', async () => {
    const { EventEmitter } = await import('eventemitter3');
    const loop = Object.assign(new EventEmitter(), {
      getStatus: () => ({ running: true, tickCount: 1 }),
    });
    await start({ loop });
    loop.emit('tickCompleted', { duration: 20 });
    loop.emit('guardTriggered', { taskId: 'T', guard: 'circuit_breaker', message: 'open', at: 1 });
    loop.emit('breakerStateChanged', { from: 'CLOSED', to: 'OPEN' });
    const text = await (await fetch(new URL('/metrics', server.url))).text();
    expect(text).toContain('loopguard_tick_duration_seconds_count{success="true"} 1');
    expect(text).toContain('loopguard_guard_triggers_total{guard="circuit_breaker"} 1');
    expect(text).toContain('loopguard_breaker_state 2');
  });
});

describe('GET /events', () => {
  it('streams a recovery written to the file by another connection', async () => {
    await start();
    ctx.database.stateMachine.upsertTask({ id: 'T9', status: 'in_progress' });
    const event = await waitForEvent(
      new URL('/events', server.url).href,
      (name) => name === 'recoveryApplied',
      {},
      () => causeBlockedSpin(ctx.detector, ctx.clock, 'T9'),
    );
    expect(event.data).toMatchObject({
      taskId: 'T9',
      action: 'unblock_authority',
      loopType: 'blocked_task_spin',
    });
  });

  it('streams the events of an in-process detector', async () => {
    await start({ emitters: [ctx.detector] });
    const event = await waitForEvent(
      new URL('/events', server.url).href,
      (name) => name === 'loopDetected',
      {},
      () => causeRevisit(ctx.detector, ctx.clock, 'T5'),
    );
    expect(event.data).toMatchObject({ taskId: 'T5', loopType: 'completed_task_revisit', attemptCount: 4 });
  });

  it('refuses streams over maxEventStreams with 503', async () => {
    await start({ maxEventStreams: 0 });
    const { status, body } = await getJson('/events');
    expect(status).toBe(503);
    expect(body.error).toContain('too many event streams');
  });
});

describe('routes, security and limits', () => {
  it('answers /healthz and serves the dashboard with a CSP without unsafe-inline', async () => {
    await start();
    expect((await getJson('/healthz')).body).toEqual({ ok: true });
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style>|\sstyle=|\son\w+=/);
    expect((await fetch(new URL('/vendor/uPlot.iife.min.js', server.url))).status).toBe(200);
  });

  it('answers unknown routes with 404 and other methods with 405', async () => {
    await start();
    const missing = await getJson('/nope');
    expect(missing).toEqual({ status: 404, body: { error: 'no route /nope' } });
    const post = await fetch(new URL('/status', server.url), { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers a body over maxBodyBytes with 413', async () => {
    await start({ maxBodyBytes: 100 });
    const declared = await fetch(new URL('/status', server.url), { method: 'POST', body: 'x'.repeat(101) });
    expect(declared.status).toBe(413);
    const chunked = await fetch(new URL('/status', server.url), {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('x'.repeat(150)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers oversized headers with 431', async () => {
    await start({ maxHeaderBytes: 1024 });
    expect(await raw('/status', { 'X-Big': 'y'.repeat(4096) })).toBe(431);
  });

  it('requires the bearer token on every route when one is set', async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    for (const path of ['/', '/status', '/recoveries', '/metrics', '/events', '/healthz']) {
      const response = await fetch(new URL(path, server.url));
      expect(response.status, path).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="loopguard"');
    }
    const wrong = await getJson('/status', { headers: { Authorization: 'Bearer wrong' } });
    expect(wrong.status).toBe(401);
    const right = await getJson('/status', { headers: { Authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
  });

  it('lets the dashboard in once with ?token= and keeps it in an HttpOnly cookie', async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    const entry = await fetch(new URL(`/?token=${token}`, server.url), { redirect: 'manual' });
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe('./');
    const cookie = entry.headers.get('set-cookie') ?? '';
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const withCookie = await getJson('/status', { headers: { Cookie: cookie.split(';')[0] ?? '' } });
    expect(withCookie.status).toBe(200);
    const wrongQuery = await fetch(new URL('/?token=wrong', server.url), { redirect: 'manual' });
    expect(wrongQuery.status).toBe(401);
  });

  it('without a token, refuses a Host that is not loopback (DNS rebinding) with 403', async () => {
    await start();
    expect(await raw('/status', { Host: 'evil.example:80' })).toBe(403);
    expect(await raw('/status', { Host: `localhost:${server.port}` })).toBe(200);
  });

  it('refuses to listen beyond loopback without a token, and reports a port in use', async () => {
    await expect(startStatusServer({ database: ctx.database, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(
      startStatusServer({ database: ctx.database, host: '0.0.0.0', port: 0, token: 'short' }),
    ).rejects.toThrow('a token of at least 16 characters is required');
    await start();
    await expect(startStatusServer({ database: ctx.database, port: server.port })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});
