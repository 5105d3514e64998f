import type { ContextEntry, ContextEntryInput, StateMachine } from '@loopguard/core';
import { StepLoopDetector } from '@loopguard/core/steps';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { waitForEvent } from './helpers.js';
import { causeBlockedSpin, causeRevisit, STORE_KINDS, type TestStore, useStores } from './stores.js';

const openStore = useStores();
let ctx: TestStore;
let server: RunningStatusServer;

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
async function getJson(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(path, server.url), init);
  return { status: response.status, body: await response.json() };
}

/** A nudge or stop as `loopguard hook claude` records it for session `session`. */
function hookEntry(topic: 'loop_nudge' | 'loop_stop', session: string): ContextEntryInput {
  return {
    entryType: topic === 'loop_stop' ? 'decision' : 'learning',
    topic,
    content:
      topic === 'loop_stop'
        ? 'Stopped (repeated_failure): cat missing.txt'
        : 'Loop detected (repeated_failure)',
    relatedTasks: [`claude:${session}`],
    confidence: 1,
    metadata: {
      loopType: 'repeated_failure',
      repeats: 3,
      sessionId: session,
      agent: 'claude',
      runId: session,
    },
  };
}

/** A step detector whose nudges and stops are collected in `entries` (its recording port). */
function recordingStepDetector(session: string, entries: ContextEntryInput[]): StepLoopDetector {
  const port = {
    addContextEntry: (input: ContextEntryInput): ContextEntry => {
      entries.push(input);
      return { ...input, id: String(entries.length), timestamp: 0 } as ContextEntry;
    },
  } as unknown as StateMachine;
  return new StepLoopDetector({ stateMachine: port, taskId: `claude:${session}` });
}

/** Feeds `detector` the same failing command until it stops. */
function repeatUntilStopped(detector: StepLoopDetector): void {
  for (;;) {
    if (detector.stepCount > 40) throw new Error('the detector never stopped');
    detector.observe({ type: 'action', tool: 'Bash', input: { command: 'cat missing.txt' } });
    const verdict = detector.observe({
      type: 'observation',
      tool: 'Bash',
      output: 'cat: missing.txt: No such file',
      error: true,
    });
    if (verdict.action === 'stop') return;
  }
}

/** The nudge and the stop a step detector records for a session that repeats a failing command. */
function nudgedThenStopped(session: string): ContextEntryInput[] {
  const entries: ContextEntryInput[] = [];
  repeatUntilStopped(recordingStepDetector(session, entries));
  return entries;
}

/** The sum of the `loopguard_loops_detected_total` series in a metrics text. */
function loopsDetected(text: string): number {
  return [...text.matchAll(/^loopguard_loops_detected_total\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

describe.each(STORE_KINDS)('the status server on %s', (kind) => {
  beforeEach(async () => {
    ctx = await openStore(kind);
  });
  afterEach(async () => {
    await server?.close();
    await ctx.cleanup();
  });

  describe('GET /status', () => {
    it("has the seed's shape: running, tickCount, loopDetection { attemptCount, lastAttempt }", async () => {
      await ctx.upsertTask({ id: 'T3.4.2', title: 'Dashboard', status: 'in_progress' });
      await ctx.upsertTask({ id: 'T7.1.2', title: 'Config', status: 'in_progress' });
      await ctx.recordAttempt('T3.4.2', 'in_progress', [], ['a'], 's1');
      ctx.clock.advance(1000);
      await ctx.recordAttempt('T3.4.2', 'in_progress', [], ['b'], 's2');
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

    it('says the hooks are off with the sentence it is given (hooksOff), asked anew; no field while they are on', async () => {
      let off: string | undefined;
      await start({ hooksOff: () => off });
      expect((await getJson('/status')).body).not.toHaveProperty('hooksOff');
      off =
        'off in this project (hook.enabled: false in loopguard.config.json): loopguard guards no session here';
      ctx.clock.advance(1_000); // the cached answer expires (the store did not change)
      expect((await getJson('/status')).body.hooksOff).toBe(off);
      off = undefined;
      ctx.clock.advance(1_000);
      expect((await getJson('/status')).body).not.toHaveProperty('hooksOff');
    });

    it('says what the project changes in the guard with the sentence it is given (hooksConfigured); no field without one (trust52)', async () => {
      let exempt: string | undefined;
      await start({ hooksConfigured: () => exempt });
      expect((await getJson('/status')).body).not.toHaveProperty('hooksConfigured');
      exempt =
        'settings of this project (/repo/loopguard.config.json): the tool "Edit" is exempt: loopguard judges none of its calls';
      ctx.clock.advance(1_000);
      expect((await getJson('/status')).body.hooksConfigured).toBe(exempt);
    });

    it('says the prices below the pricing library with the sentence it is given (pricesBelowLibrary); no field without one (trust54)', async () => {
      let below: string | undefined;
      await start({ pricesBelowLibrary: () => below });
      expect((await getJson('/status')).body).not.toHaveProperty('pricesBelowLibrary');
      below =
        'prices in this project below the pricing library\'s: "claude-sonnet-4-5" input $0.00 (the library: $3.00) a million tokens (from /repo/loopguard.config.yaml): every budget in dollars counts these replies at them';
      ctx.clock.advance(1_000);
      expect((await getJson('/status')).body.pricesBelowLibrary).toBe(below);
    });

    it('keeps a task named __proto__ (or constructor) in loopDetection', async () => {
      for (const id of ['__proto__', 'constructor', 'T1']) {
        await ctx.upsertTask({ id, status: 'in_progress' });
        await ctx.recordAttempt(id, 'in_progress', [], ['a'], 's1');
      }
      await start();
      const text = await (await fetch(new URL('/status', server.url))).text();
      const body = JSON.parse(text);
      expect(Object.keys(body.loopDetection).sort()).toEqual(['T1', '__proto__', 'constructor']);
      expect(Object.getOwnPropertyDescriptor(body.loopDetection, '__proto__')?.value).toEqual({
        attemptCount: 1,
        lastAttempt: ctx.clock.now(),
      });
      expect(Object.getPrototypeOf(body.loopDetection)).toBe(Object.prototype);
      expect(text).toContain('"__proto__":{"attemptCount":1');
    });

    it('counts only attempts inside the window', async () => {
      await ctx.upsertTask({ id: 'T1', status: 'in_progress' });
      await ctx.recordAttempt('T1', 'in_progress', [], ['a'], 's1');
      ctx.clock.advance(2 * 3_600_000);
      await start({ attemptWindowMs: 3_600_000 });
      const { body } = await getJson('/status');
      expect(body.tasks[0]).toMatchObject({ id: 'T1', attemptCount: 0, lastAttempt: null });
      expect(body.loopDetection).toEqual({});
      expect(body.running).toBe(false);
    });

    it('pages with limit and cursor, with the total', async () => {
      for (let i = 0; i < 250; i++)
        await ctx.upsertTask({ id: `T${String(i).padStart(3, '0')}`, status: 'pending' });
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
      await ctx.upsertTask({ id: 'T3.4.3', status: 'in_progress' });
      await causeBlockedSpin(ctx, 'T3.4.3');
      await start();
      const { body } = await getJson('/status');
      expect(body.tasks[0]).toMatchObject({ id: 'T3.4.3', lastRecovery: 'unblock_authority' });
    });

    it('shows the breaker state when a breaker source is given', async () => {
      await start({ breaker: () => ({ state: 'OPEN', reason: 'no progress' }) });
      const { body } = await getJson('/status');
      expect(body.breaker).toEqual({ state: 'OPEN', reason: 'no progress' });
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
      await ctx.upsertTask({ id: 'T1', status: 'in_progress' });
      await start({ cacheMs: 1000 });
      const first = (await getJson('/status')).body;
      ctx.clock.advance(500);
      expect((await getJson('/status')).body.generatedAt).toBe(first.generatedAt);
      ctx.clock.advance(600);
      const expired = (await getJson('/status')).body;
      expect(expired.generatedAt).toBe(first.generatedAt + 1100);
      await ctx.recordAttempt('T1', 'in_progress', [], ['a'], 's1');
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
      for (const id of ['A', 'B', 'C']) await ctx.upsertTask({ id, status: 'in_progress' });
      await causeBlockedSpin(ctx, 'A');
      await causeRevisit(ctx, 'B');
      await causeBlockedSpin(ctx, 'C');
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

    it("lists a hook session's loop_nudge and loop_stop as nudge and stop, keyed by the session", async () => {
      ctx.clock.advance(1000);
      await ctx.addContextEntry(hookEntry('loop_nudge', 's1'));
      ctx.clock.advance(1000);
      await ctx.addContextEntry(hookEntry('loop_stop', 's1'));
      await start();
      const all = (await getJson('/recoveries')).body.recoveries;
      expect(all.map((r: { action: string; taskId: string }) => [r.action, r.taskId])).toEqual([
        ['stop', 'claude:s1'],
        ['nudge', 'claude:s1'],
        ['unblock_authority', 'C'],
        ['force_next', 'B'],
        ['unblock_authority', 'A'],
      ]);
      expect(all[0]).toMatchObject({
        topic: 'loop_stop',
        loopType: 'repeated_failure',
        metadata: { sessionId: 's1' },
      });
      const stops = (await getJson('/recoveries?topic=loop_stop')).body.recoveries;
      expect(stops.map((r: { action: string }) => r.action)).toEqual(['stop']);
      const bySession = (await getJson('/recoveries?task=claude:s1')).body.recoveries;
      expect(bySession.map((r: { action: string }) => r.action)).toEqual(['stop', 'nudge']);
      // /status keeps its shape: a task's lastRecovery is still one of the three recovery topics
      const status = (await getJson('/status')).body;
      expect(status.tasks.map((t: { lastRecovery: string }) => t.lastRecovery)).toEqual([
        'unblock_authority',
        'loop_recovery',
        'unblock_authority',
      ]);
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
      [
        'topic=other',
        'topic must be one of loop_recovery, unblock_authority, loop_escalation, loop_nudge, loop_stop, spend_warning, spend_stop',
      ],
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
      await ctx.upsertTask({ id: 'A', status: 'in_progress' });
      await causeBlockedSpin(ctx, 'A'); // the recovery clears A's 3 attempts
      await ctx.recordAttempt('B', 'in_progress', [], ['x'], 's');
      await start();
      let seen = 0;
      await waitForEvent(
        new URL('/events', server.url).href,
        (name, data) => {
          if (name === 'attemptsRecorded') seen += (data as { count: number }).count;
          return seen >= 2;
        },
        {},
        async () => {
          await ctx.recordAttempt('B', 'in_progress', [], ['y'], 's');
          await ctx.recordAttempt('B', 'in_progress', [], ['z'], 's');
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

    it('counts a nudged, then stopped session as one loop, and the nudge and the stop each as a recovery', async () => {
      const entries = nudgedThenStopped('s1');
      expect(entries.map((e) => e.topic)).toEqual(['loop_nudge', 'loop_stop']);
      for (const entry of entries) await ctx.addContextEntry(entry); // stored before the start
      await start();
      const stored = await (await fetch(new URL('/metrics', server.url))).text();
      expect(loopsDetected(stored)).toBe(1);
      expect(stored).toContain('loopguard_recoveries_total{action="nudge"} 1');
      expect(stored).toContain('loopguard_recoveries_total{action="stop"} 1');
      for (const entry of nudgedThenStopped('s2')) await ctx.addContextEntry(entry); // followed
      const followed = await (await fetch(new URL('/metrics', server.url))).text();
      expect(loopsDetected(followed)).toBe(2);
      expect(followed).toContain('loopguard_recoveries_total{action="stop"} 2');
    });

    it('counts a stop that /recoveries already shows: both read the same state', async () => {
      await start({ followIntervalMs: 3_600_000 }); // only a scrape reads the store
      await ctx.upsertTask({ id: 'T1', status: 'in_progress' });
      await causeBlockedSpin(ctx, 'T1');
      await ctx.addContextEntry(hookEntry('loop_stop', 's3'));
      const { body } = await getJson('/recoveries');
      expect(body.recoveries.map((r: { action: string }) => r.action)).toEqual(['stop', 'unblock_authority']);
      const text = await (await fetch(new URL('/metrics', server.url))).text();
      expect(text).toContain('loopguard_recoveries_total{action="stop"} 1');
      expect(text).toContain('loopguard_recoveries_total{action="unblock_authority"} 1');
      expect(text).toContain('loopguard_loops_detected_total{loop_type="blocked_task_spin"} 1');
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
      await ctx.upsertTask({ id: 'T9', status: 'in_progress' });
      const event = await waitForEvent(
        new URL('/events', server.url).href,
        (name) => name === 'recoveryApplied',
        {},
        () => causeBlockedSpin(ctx, 'T9'),
      );
      expect(event.data).toMatchObject({
        taskId: 'T9',
        action: 'unblock_authority',
        loopType: 'blocked_task_spin',
      });
    });

    it("streams a hook session's loop_stop as a stop", async () => {
      await start();
      const event = await waitForEvent(
        new URL('/events', server.url).href,
        (name) => name === 'recoveryApplied',
        {},
        () => ctx.addContextEntry(hookEntry('loop_stop', 's2')),
      );
      expect(event.data).toMatchObject({ topic: 'loop_stop', action: 'stop', taskId: 'claude:s2' });
    });

    it('streams the events of an in-process detector', async () => {
      await start({ emitters: [ctx.detector] });
      const event = await waitForEvent(
        new URL('/events', server.url).href,
        (name) => name === 'loopDetected',
        {},
        () => causeRevisit(ctx, 'T5'),
      );
      expect(event.data).toMatchObject({ taskId: 'T5', loopType: 'completed_task_revisit', attemptCount: 4 });
    });

    it("counts an in-process step detector's nudge and stop, the loop once", async () => {
      const detector = recordingStepDetector('s4', []);
      await start({ emitters: [detector] });
      const event = await waitForEvent(
        new URL('/events', server.url).href,
        (name) => name === 'loopDetected',
        {},
        () => repeatUntilStopped(detector),
      );
      expect(event.data).toMatchObject({ taskId: 'claude:s4', loopType: 'same_error' });
      const text = await (await fetch(new URL('/metrics', server.url))).text();
      expect(loopsDetected(text)).toBe(1);
      expect(text).toContain('loopguard_recoveries_total{action="nudge"} 1');
      expect(text).toContain('loopguard_recoveries_total{action="stop"} 1');
    });

    it('refuses streams over maxEventStreams with 503', async () => {
      await start({ maxEventStreams: 0 });
      const { status, body } = await getJson('/events');
      expect(status).toBe(503);
      expect(body.error).toContain('too many event streams');
    });
  });
});
