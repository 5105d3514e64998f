import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ContextEntry, ManualClock, type StateMachine, type Task } from '@loopguard/core';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Decision,
  type ExecutionResult,
  type Executor,
  ManualTimer,
  OrchestratorLoop,
  type Policy,
} from '../src/index.js';
import { T0 } from './helpers.js';

/** The seed's query, verbatim. */
const SEED_SQL = `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`;

interface RoadmapState {
  tasks: Task[];
  forcedPast: Set<string>;
}

/**
 * The buggy autopilot of the seed's "Before" example: it keeps picking T3.4.2 although it is
 * done, until a `loop_recovery` entry tells it not to revisit the task; then it selects the next
 * task from the roadmap (the seed's plan_next()).
 */
function buggyAutopilot(stateMachine: StateMachine): Policy<RoadmapState> {
  return {
    getSystemState: () => ({
      tasks: stateMachine.listTasks(),
      forcedPast: new Set(
        stateMachine
          .listContextEntries({ topics: ['loop_recovery'] })
          .flatMap((e: ContextEntry) => e.relatedTasks),
      ),
    }),
    decide: ({ tasks, forcedPast }): Decision => {
      if (!forcedPast.has('T3.4.2')) return { type: 'run_task', task: { id: 'T3.4.2' } }; // the bug
      const next = tasks.find((t) => t.status !== 'done' && !forcedPast.has(t.id));
      return next ? { type: 'run_task', task: next } : { type: 'idle', reason: 'roadmap empty' };
    },
  };
}

const WORK: Record<string, string[]> = {
  'T3.4.2': [
    'Checking if task complete...',
    'Verifying implementation...',
    'Running final checks...',
    'Re-reading requirements...',
  ],
  'T3.4.3': ['fresh start'],
};

describe('seed 002 "Before / After Loop Detection" against a SQLite file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loopguard-seed-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('revisits T3.4.2 three times, detects the loop on the 4th tick, forces the next task T3.4.3', async () => {
    const path = join(dir, 'loopguard.db');
    const clock = new ManualClock(T0);
    const timer = new ManualTimer(clock);
    const store = openLoopGuardDatabase(path, { clock });
    store.stateMachine.upsertTask({ id: 'T3.4.2', title: 'Dashboard page', status: 'done' });
    store.stateMachine.upsertTask({ id: 'T3.4.3', title: 'Dashboard charts' });

    const runs = new Map<string, number>();
    const executor: Executor = async (task) => {
      const n = runs.get(task.id) ?? 0;
      runs.set(task.id, n + 1);
      clock.advance(45_000); // the agent works for a while
      const work = WORK[task.id]?.[n] ?? `more work on ${task.id}`;
      return { status: task.id === 'T3.4.2' ? 'done' : 'in_progress', completedWork: [work], blockers: [] };
    };
    const loop = new OrchestratorLoop({
      stateMachine: store.stateMachine,
      policy: buggyAutopilot(store.stateMachine),
      executor,
      detectorOptions: { maxAttempts: 3, enableAutoUnblock: true, attemptStore: store.attemptStore },
      clock,
      timer,
    });

    const transcript: string[] = [];
    const results: ExecutionResult[] = [];
    loop.on('tickCompleted', (result) => {
      results.push(result);
      const { action, details } = result;
      if (action?.type !== 'run_task') return;
      if (details.loopRecoveryApplied) {
        transcript.push(`Attempt ${results.length}: LOOP DETECTED - Force moving to next task`);
      } else if (action.task.id === 'T3.4.2') {
        transcript.push(
          `Attempt ${results.length}: ${action.task.id} (${details.status}) - "${details.completedWork?.[0]}"`,
        );
      } else {
        transcript.push(`Next task: ${action.task.id} (${details.completedWork?.[0]})`);
      }
    });

    loop.start();
    await loop.whenIdle();
    for (let i = 0; i < 4; i++) {
      timer.advance(30_000);
      await loop.whenIdle();
    }
    await loop.stop();

    expect(transcript).toEqual([
      'Attempt 1: T3.4.2 (done) - "Checking if task complete..."',
      'Attempt 2: T3.4.2 (done) - "Verifying implementation..."',
      'Attempt 3: T3.4.2 (done) - "Running final checks..."',
      'Attempt 4: LOOP DETECTED - Force moving to next task',
      'Next task: T3.4.3 (fresh start)',
    ]);
    expect(runs.get('T3.4.2')).toBe(3); // the 4th revisit was never executed
    expect(results[3]).toMatchObject({
      success: true,
      action: { type: 'run_task', task: { id: 'T3.4.2' } },
      details: {
        loopRecoveryApplied: true,
        loopDetection: {
          isLooping: true,
          loopType: 'completed_task_revisit',
          attemptCount: 3,
          recommendation: 'force_next',
        },
        recovery: { applied: true, action: 'force_next' },
      },
    });
    expect(results.map((r) => r.details.sessionId ?? null)).toEqual([
      'session_1',
      'session_2',
      'session_3',
      null,
      'session_5',
    ]);
    // after the recovery, T3.4.2's attempts were cleared: the dashboard only shows T3.4.3
    expect(loop.getStatus().loopDetection).toEqual({
      'T3.4.3': { attemptCount: 1, lastAttempt: expect.any(Number) },
    });
    store.close();

    // the seed's SQL, verbatim, from a plain connection to the file
    const reader = openLoopGuardDatabase(path, { readonly: true });
    const rows = reader.db.prepare(SEED_SQL).all() as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      entry_type: 'constraint',
      topic: 'loop_recovery',
      content:
        'LOOP DETECTED: Task T3.4.2 completed after 3 attempts.\nDO NOT revisit this task. SELECT NEXT TASK from roadmap using plan_next().',
      confidence: 1,
    });
    expect(JSON.parse(String(row?.related_tasks))).toEqual(['T3.4.2']);
    const metadata = JSON.parse(String(row?.metadata));
    expect(metadata).toMatchObject({
      taskId: 'T3.4.2',
      loopType: 'completed_task_revisit',
      recommendation: 'force_next',
      attemptCount: 3,
    });
    expect(
      metadata.evidence.map((a: { sessionId: string; status: string; completedWork: string[] }) => [
        a.sessionId,
        a.status,
        a.completedWork,
      ]),
    ).toEqual([
      ['session_1', 'done', ['Checking if task complete...']],
      ['session_2', 'done', ['Verifying implementation...']],
      ['session_3', 'done', ['Running final checks...']],
    ]);
    // the attempts rows: T3.4.2's were cleared by the recovery, T3.4.3's first attempt is there
    const attempts = reader.db.prepare('SELECT task_id, status, session_id FROM attempts ORDER BY id').all();
    expect(attempts).toEqual([{ task_id: 'T3.4.3', status: 'in_progress', session_id: 'session_5' }]);
    const t343 = reader.db.prepare("SELECT status FROM tasks WHERE id = 'T3.4.3'").get();
    expect(t343).toEqual({ status: 'in_progress' });
    reader.close();
  });
});
