import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopDetector, ManualClock } from '@loopguard/core';
import { type LoopGuardDatabase, openLoopGuardDatabase } from '@loopguard/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { type ExecutionResult, type ExecutorReport, ManualTimer, OrchestratorLoop } from '../src/index.js';
import { T0 } from './helpers.js';

/**
 * The documented tick flow over a SQLite file: a policy that keeps picking tasks, an
 * executor that reports scripted results, and `tick()` after `tick()`, one minute apart.
 */
const opened: Array<{ database: LoopGuardDatabase; dir: string }> = [];
afterEach(() => {
  for (const { database, dir } of opened.splice(0)) {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function autopilot(
  picks: () => string,
  execute: (taskId: string, tick: number) => ExecutorReport,
  detectorOptions: ConstructorParameters<typeof LoopDetector>[1] = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-autopilot-'));
  const clock = new ManualClock(T0);
  const database = openLoopGuardDatabase(join(dir, 'loopguard.db'), { clock });
  opened.push({ database, dir });
  const detector = new LoopDetector(database.storage, { clock, ...detectorOptions });
  const executed: string[] = [];
  let tick = 0;
  const loop = new OrchestratorLoop({
    stateMachine: database.stateMachine,
    detector,
    clock,
    timer: new ManualTimer(clock),
    policy: { getSystemState: () => null, decide: () => ({ type: 'run_task', task: { id: picks() } }) },
    executor: async (task) => {
      executed.push(task.id);
      return execute(task.id, tick);
    },
  });
  async function ticks(count: number): Promise<ExecutionResult[]> {
    const results: ExecutionResult[] = [];
    for (let i = 0; i < count; i++) {
      tick++;
      results.push(await loop.tick());
      clock.advance(60_000);
    }
    return results;
  }
  return { database, detector, loop, ticks, executed, clock };
}

const recoveries = (results: ExecutionResult[]) =>
  results.flatMap((r) =>
    r.details.recovery?.applied ? [`${r.tickNumber}:${r.details.recovery.action}`] : [],
  );

describe('force_next is reachable through ticks', () => {
  it('12 ticks of identical work: force_next at tick 6 and 12, never escalate', async () => {
    const work = ['Read file A', 'Parse config'];
    const a = autopilot(
      () => 'T7.1.2',
      () => ({ status: 'in_progress', completedWork: work, blockers: [] }),
    );
    a.database.stateMachine.upsertTask({ id: 'T7.1.2', status: 'in_progress' });
    const results = await a.ticks(12);
    expect(recoveries(results)).toEqual(['6:force_next', '12:force_next']);
    expect(a.executed).toHaveLength(10);
    const entries = a.database.db
      .prepare(
        `SELECT topic FROM context_entries
         WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
         ORDER BY timestamp DESC LIMIT 10`,
      )
      .all();
    expect(entries).toEqual([{ topic: 'loop_recovery' }, { topic: 'loop_recovery' }]);
  });

  it('the seed recommendations are each reachable in the tick flow', async () => {
    const revisit = autopilot(
      () => 'T3.4.2',
      () => ({ status: 'done', completedWork: ['Checked'], blockers: [] }),
    );
    expect(recoveries(await revisit.ticks(4))).toEqual(['4:force_next']);
    const spin = autopilot(
      () => 'T3.4.3',
      () => ({ status: 'blocked', completedWork: [], blockers: ['critic unavailable'] }),
    );
    expect(recoveries(await spin.ticks(8))).toEqual(['4:unblock_authority', '8:escalate']);
  });
});

describe('an escalation sticks until resolved', () => {
  it('the escalated task is skipped, stays blocked, and runs again after resolveEscalation', async () => {
    const a = autopilot(
      () => 'T6.2.3',
      () => ({ status: 'blocked', completedWork: [], blockers: ['missing auth token'] }),
      { enableAutoUnblock: false },
    );
    const { stateMachine, db } = a.database;
    stateMachine.upsertTask({ id: 'T6.2.3', status: 'in_progress' });
    const first = await a.ticks(4);
    expect(recoveries(first)).toEqual(['4:escalate']);

    const waiting = await a.ticks(5);
    expect(waiting.map((r) => r.details.skipped)).toEqual(Array(5).fill('escalated'));
    expect(waiting[0]?.details.escalation?.topic).toBe('loop_escalation');
    expect(a.executed).toHaveLength(3);
    expect(stateMachine.getTask('T6.2.3')?.status).toBe('blocked');
    const stillBlocked = db
      .prepare(`SELECT id FROM tasks WHERE status = 'blocked' AND blocked_reason LIKE 'Loop escalation:%'`)
      .all();
    expect(stillBlocked).toEqual([{ id: 'T6.2.3' }]);

    const resolved = a.detector.resolveEscalation('T6.2.3', { note: 'Rotated the token', by: 'alice' });
    expect(resolved.task?.status).toBe('pending');
    expect(resolved.entry).toMatchObject({
      topic: 'loop_resolution',
      relatedTasks: ['T6.2.3'],
      metadata: { resolution: 'resolved', by: 'alice', escalationEntryId: resolved.escalation.id },
    });
    expect(stateMachine.listTaskEvents('T6.2.3').at(-1)).toMatchObject({
      fromStatus: 'blocked',
      toStatus: 'pending',
      reason: 'Escalation resolved: Rotated the token',
    });
    expect(a.detector.openEscalation('T6.2.3')).toBeNull();

    const after = await a.ticks(1);
    expect(after[0]?.details.skipped).toBeUndefined();
    expect(a.executed).toHaveLength(4);
  });

  it('resolveEscalation without an open escalation is a typed error and writes nothing', () => {
    const a = autopilot(
      () => 'T1',
      () => ({ status: 'in_progress', completedWork: [], blockers: [] }),
    );
    expect(() => a.detector.resolveEscalation('T1', { note: 'n' })).toThrow(/has no open escalation/);
    expect(() => a.detector.resolveEscalation('T1', { note: '' })).toThrow(/input\.note/);
    expect(a.database.stateMachine.listContextEntries()).toEqual([]);
  });
});

describe('a task that makes progress is not flagged', () => {
  it('12 ticks with new work each time: no recovery', async () => {
    const a = autopilot(
      () => 'T2',
      (_, tick) => ({ status: 'in_progress', completedWork: [`step ${tick}`], blockers: [] }),
    );
    const results = await a.ticks(12);
    expect(recoveries(results)).toEqual([]);
    expect(a.executed).toHaveLength(12);
  });
});

describe('cross-task cycles', () => {
  it('T1 → T2 → T3 → T1 … without progress is caught after three rounds and escalates all three', async () => {
    const order = ['T1', 'T2', 'T3'];
    let pick = 0;
    const a = autopilot(
      () => order[pick++ % 3] as string,
      (taskId) => ({ status: 'in_progress', completedWork: [`looked at ${taskId}`], blockers: [] }),
    );
    for (const id of order) a.database.stateMachine.upsertTask({ id, status: 'in_progress' });
    const results = await a.ticks(12);
    expect(recoveries(results)).toEqual(['10:escalate']);
    const caught = results[9];
    expect(caught?.details.loopDetection).toMatchObject({
      loopType: 'cross_task_cycle',
      cycleTasks: ['T1', 'T2', 'T3'],
      attemptCount: 9,
    });
    expect(a.executed).toHaveLength(9);
    expect(results.slice(10).map((r) => r.details.skipped)).toEqual(['escalated', 'escalated']);
    for (const id of order) expect(a.database.stateMachine.getTask(id)?.status).toBe('blocked');
    const [entry] = a.database.stateMachine.listContextEntries({ topics: ['loop_escalation'] });
    expect(entry).toMatchObject({
      relatedTasks: ['T1', 'T2', 'T3'],
      metadata: { loopType: 'cross_task_cycle', tasks: ['T1', 'T2', 'T3'], rounds: 3 },
    });
    expect(entry?.metadata.evidence).toHaveLength(9);
  });

  it('tasks that take turns while progressing are not a cycle', async () => {
    let pick = 0;
    const a = autopilot(
      () => (pick++ % 2 === 0 ? 'T1' : 'T2'),
      (taskId, tick) => ({ status: 'in_progress', completedWork: [`${taskId} step ${tick}`], blockers: [] }),
    );
    expect(recoveries(await a.ticks(12))).toEqual([]);
  });

  it('cycleRounds: null turns cycle detection off', async () => {
    let pick = 0;
    const a = autopilot(
      () => (pick++ % 2 === 0 ? 'T1' : 'T2'),
      () => ({ status: 'in_progress', completedWork: ['same'], blockers: [] }),
      { cycleRounds: null },
    );
    // without cycles, each task reaches its own no-progress force_next after 5 attempts
    expect(recoveries(await a.ticks(12))).toEqual(['11:force_next', '12:force_next']);
  });
});

describe('recovery history through the detector', () => {
  it('lists a task’s recoveries, or all, newest first, without SQL', async () => {
    const a = autopilot(
      () => 'T3.4.3',
      () => ({ status: 'blocked', completedWork: [], blockers: ['critic unavailable'] }),
    );
    await a.ticks(8);
    const other = a.detector.recordAttempt('T9', 'done', [], [], 's');
    expect(other.taskId).toBe('T9');
    for (let i = 0; i < 2; i++) a.detector.recordAttempt('T9', 'done', [], [], 's');
    await a.detector.applyRecovery(a.detector.detectLoop('T9'));

    const ofTask = a.detector.listRecoveries({ taskId: 'T3.4.3' });
    expect(ofTask.map((r) => [r.action, r.loopType, r.tasks])).toEqual([
      ['escalate', 'blocked_task_spin', ['T3.4.3']],
      ['unblock_authority', 'blocked_task_spin', ['T3.4.3']],
    ]);
    expect(ofTask[0]?.entry.metadata.evidence).toHaveLength(3);
    expect(a.detector.listRecoveries().map((r) => r.tasks[0])).toEqual(['T9', 'T3.4.3', 'T3.4.3']);
    expect(a.detector.listRecoveries({ limit: 1 })).toHaveLength(1);
    expect(() => a.detector.listRecoveries({ limit: 0 })).toThrow(/query\.limit must be a positive integer/);
  });
});
