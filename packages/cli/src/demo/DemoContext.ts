import type { LoopDetector, LoopDetectorOptions, ManualClock } from '@loopguard/core';
import type { ExecutionResult, ExecutorReport, IterationSessions } from '@loopguard/orchestrator';
import type { LiveEmitter } from '@loopguard/server';
import type { LoopGuardDatabase } from '@loopguard/sqlite';

/**
 * An autopilot of the demo: an `OrchestratorLoop` over the demo's database whose policy runs the
 * task the scenario names and whose executor returns the report the scenario scripts.
 * @example const result = await ctx.tick('T3.4.2', { status: 'done', completedWork: ['Checked'], blockers: [] }, 'Checking...');
 */
export interface DemoAutopilot {
  /** The detector the autopilot's loop checks before every execution. */
  readonly detector: LoopDetector;
  /**
   * One `OrchestratorLoop.tick()`: the policy picks `taskId`; the loop checks for a loop first (and
   * applies its recovery, skipping execution), skips a task with an open escalation, or runs the
   * executor, which reports `report`. Prints one line (the seed's log lines come from the detector),
   * then advances the clock a minute.
   */
  tick(taskId: string, report: ExecutorReport, note: string): Promise<ExecutionResult>;
}

/**
 * What a demo scenario works with: the database, its manual clock, a shared autopilot (`tick`,
 * `detector`), further autopilots with their own detector options, and `print` for the narration.
 * @example await ctx.tick('T3.4.2', { status: 'done', completedWork: ['Checking'], blockers: [] }, 'Checking if task complete...');
 */
export interface DemoContext extends DemoAutopilot {
  /** The demo's own database (a temporary file). */
  readonly database: LoopGuardDatabase;
  /** The `loopguard run` sessions the scenarios write. */
  readonly sessions: IterationSessions;
  /** The demo's simulated clock: scenarios move it on by hand. */
  readonly clock: ManualClock;
  /**
   * A folder of the demo's own, beside its database, emptied at every run: where a scenario keeps
   * the files it makes (a project the hooks guard, a transcript to scan), so that none is left behind.
   * @example ctx.workDir; // '/repo/.loopguard/demo-files'
   */
  readonly workDir: string;
  /** Writes one line of narration. */
  print(line: string): void;
  /**
   * The terminal's width in columns (`CliIo.columns`), for a table a scenario prints; `undefined`
   * for a pipe or a file (the table as it is).
   */
  readonly columns: number | undefined;
  /**
   * A separate autopilot whose detector has `options` (for example `{ enableAutoUnblock: false }`),
   * on the same database, clock and logger.
   */
  autopilot(options?: LoopDetectorOptions): DemoAutopilot;
  /** Streams an emitter the scenario creates (a breaker) to the dashboard, when the demo serves one. */
  watch(emitter: LiveEmitter): void;
  /** Waits the demo's pace (nothing when the pace is 0), so a person can watch the dashboard. */
  pause(): Promise<void>;
}

/**
 * One scenario of `loopguard demo`: a title and a script. Add a file in `scenarios/` and list it
 * in `scenarios/index.ts`.
 * @example { title: 'Completed task revisit', tasks: [['T3.4.2', 'Dashboard page', 'done']], run: async (ctx) => { … } }
 */
export interface DemoScenario {
  /** Printed as the scenario's heading. */
  title: string;
  /** Tasks to create before the demo starts: id, title, status. */
  tasks: readonly [id: string, title: string, status: import('@loopguard/core').TaskStatus][];
  /** Runs the scenario. */
  run(ctx: DemoContext): Promise<void>;
}
