import { ManualClock } from '@loopguard/core';
import { StepLoopDetector } from '@loopguard/core/steps';
import { afterAll, describe, expect, it } from 'vitest';
import { openLoopGuardDatabase } from '../src/index.js';

const T0 = 1_763_500_000_000;

describe('step-level loops in SQLite', () => {
  const store = openLoopGuardDatabase(':memory:', { clock: new ManualClock(T0) });
  afterAll(() => store.close());

  it('nudges and stops are context entries, queryable with SQL beside the recovery topics', () => {
    store.stateMachine.upsertTask({ id: 'T7', title: 'Fix the date parser' });
    const detector = new StepLoopDetector({
      stateMachine: store.stateMachine,
      taskId: 'T7',
      runId: 'r1',
      clock: new ManualClock(T0),
    });
    // the graded ladder (docs/step-detector.md): three failures of one class nudge, the fourth stops
    for (let i = 0; i < 4; i++) {
      detector.observe({ type: 'action', tool: 'bash', input: 'pytest tests/test_dates.py' });
      detector.observe({
        type: 'observation',
        output: `E   AssertionError: assert 3 == 4\ntests/test_dates.py:${10 + i}: AssertionError`,
        error: true,
      });
    }
    const rows = store.db
      .prepare(
        `SELECT topic, entry_type, json_extract(metadata, '$.loopType') AS loop_type, json_extract(metadata, '$.repeats') AS repeats, related_tasks
         FROM context_entries
         WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation', 'loop_nudge', 'loop_stop')
         ORDER BY id`,
      )
      .all();
    expect(rows).toEqual([
      {
        topic: 'loop_nudge',
        entry_type: 'learning',
        loop_type: 'same_error',
        repeats: 3,
        related_tasks: '["T7"]',
      },
      {
        topic: 'loop_stop',
        entry_type: 'decision',
        loop_type: 'same_error',
        repeats: 4,
        related_tasks: '["T7"]',
      },
    ]);
  });
});
