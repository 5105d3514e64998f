import type { LoopDetector, ManualClock, TaskStatus } from '@loopguard/core';
import type { IterationSessions } from '@loopguard/orchestrator';
import type { LiveEmitter } from '@loopguard/server';
import type { LoopGuardDatabase } from '@loopguard/sqlite';

/**
 * What a demo scenario works with: the detector and the iteration sessions on the demo's SQLite
 * file, its manual clock, and `print` for the narration.
 * @example await ctx.pick('T3.4.2', 'done', [], ['Checking'], 'Checking if task complete...');
 */
export interface DemoContext {
  readonly database: LoopGuardDatabase;
  readonly detector: LoopDetector;
  readonly sessions: IterationSessions;
  readonly clock: ManualClock;
  /** Writes one line of narration. */
  print(line: string): void;
  /**
   * One autopilot pick (the seed's tick): check for a loop before executing and apply its recovery
   * (returns `false` then); otherwise record the attempt and advance the clock a minute.
   */
  pick(
    taskId: string,
    status: TaskStatus,
    blockers: string[],
    completedWork: string[],
    note: string,
  ): Promise<boolean>;
  /** Streams an emitter the scenario creates (a breaker) to the dashboard, when the demo serves one. */
  watch(emitter: LiveEmitter): void;
  /** Waits the demo's pace (nothing when the pace is 0), so a person can watch the dashboard. */
  pause(): Promise<void>;
}

/**
 * One scenario of `loopguard demo`: a title and a script. Add a file in `scenarios/` and list it
 * in `scenarios/index.ts`.
 * @example { title: 'Completed task revisit', run: async (ctx) => { … } }
 */
export interface DemoScenario {
  /** Printed as the scenario's heading. */
  title: string;
  /** Tasks to create before the demo starts: id, title, status. */
  tasks: readonly [id: string, title: string, status: TaskStatus][];
  /** Runs the scenario. */
  run(ctx: DemoContext): Promise<void>;
}
