import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LoopDetector, type LoopDetectorOptions, ManualClock } from '@loopguard/core';
import {
  type ExecutionResult,
  type ExecutorReport,
  IterationSessions,
  ManualTimer,
  OrchestratorLoop,
} from '@loopguard/orchestrator';
import { attachEmitter, type RunningStatusServer, statusSnapshot } from '@loopguard/server';
import { openLoopGuardDatabase, SqliteIterationStore, SqliteStatusReader } from '@loopguard/sqlite';
import { pino } from 'pino';
import { serveDashboard, untilSignal } from '../commands/serveDashboard.js';
import type { CliIo } from '../terminal/cliIo.js';
import { formatTable } from '../terminal/formatTable.js';
import { localTime, timeZoneName } from '../terminal/localTime.js';
import { sessionList } from '../terminal/sessionList.js';
import type { DemoAutopilot, DemoContext, DemoScenario } from './DemoContext.js';
import {
  demoDatabaseCheck,
  demoFolderCheck,
  demoFolderExists,
  demoStateFolderCheck,
  markDemoDatabase,
  markDemoFolder,
} from './demoDatabase.js';
import { DEMO_SCENARIOS } from './scenarios/index.js';

/**
 * How far back the demo's scripted history starts: 70 minutes. Its scenes take about 50 minutes, so
 * that it ends more than 10 minutes before now: a session of it that loopguard never stopped (the
 * AI SDK run that never loops) is finished, "no loop found", not "running".
 */
const DEMO_HISTORY_MS = 4_200_000;

/** The seed's SQL over recovery context entries, verbatim. */
export const SEED_RECOVERY_SQL = `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`;

/**
 * Options of {@link runDemo}.
 * @example { db: '.loopguard/demo.db', serve: false, port: 7070, paceMs: 0 }
 */
export interface RunDemoOptions {
  /** The SQLite file to (re)create. @default '.loopguard/demo.db' */
  db: string;
  /** Serve the dashboard from the start and keep it up afterwards (until SIGINT/SIGTERM). */
  serve: boolean;
  /** Port of the dashboard with `serve`. @default 7070 */
  port: number;
  /** Real milliseconds to wait after each attempt, to watch the dashboard. @default 0 */
  paceMs: number;
  /** The scenarios to run. @default DEMO_SCENARIOS */
  scenarios?: readonly DemoScenario[];
}

/**
 * `loopguard demo`: a scripted autopilot on a fresh SQLite file falls into every loop type and a
 * guard trip; the seed's log lines are printed as they happen, then the seed's SQL result as a
 * table and the status JSON. A `db` that holds anything but a previous demo's data is refused
 * before anything is deleted (`demoDatabaseCheck`).
 * @throws CliError (usage) for such a `db`.
 * @example await runDemo({ db: '.loopguard/demo.db', serve: false, port: 7070, paceMs: 0 }, processIo());
 */
export async function runDemo(options: RunDemoOptions, io: CliIo): Promise<void> {
  const path = resolve(io.cwd, options.db);
  demoFolderExists(path, options.db);
  demoDatabaseCheck(path, options.db);
  const workDir = join(dirname(path), 'demo-files');
  demoFolderCheck(workDir, options.db);
  demoStateFolderCheck(path);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  // The scripted autopilot's clock advances a minute a tick: it starts far enough back that its
  // records end before now, as a real history would.
  const clock = new ManualClock(Math.floor((Date.now() - DEMO_HISTORY_MS) / 1000) * 1000);
  const logger = pino(
    { level: 'info', base: null, timestamp: false },
    { write: (line: string) => io.stdout(`  [log] ${(JSON.parse(line) as { msg: string }).msg}\n`) },
  );
  // the database first: a folder it makes (`.loopguard`) is private and kept out of git
  const database = openLoopGuardDatabase(path, { clock, createDirectory: true });
  markDemoDatabase(database.db);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  markDemoFolder(workDir);
  const sessions = new IterationSessions({
    stateMachine: database.stateMachine,
    store: new SqliteIterationStore({ db: database.db }),
    clock,
    logger,
  });
  let server: RunningStatusServer | undefined;
  let ticks = 0;
  const pause = (): Promise<void> =>
    options.paceMs > 0 ? new Promise((done) => setTimeout(done, options.paceMs)) : Promise.resolve();
  const autopilot = (detectorOptions: LoopDetectorOptions = {}): DemoAutopilot => {
    const detector = new LoopDetector(database.stateMachine, {
      ...detectorOptions,
      clock,
      logger,
      attemptStore: database.attemptStore,
    });
    if (server) attachEmitter(server.handler.feed, detector);
    let next = {
      taskId: '',
      report: { status: 'in_progress', completedWork: [], blockers: [] } as ExecutorReport,
    };
    const loop = new OrchestratorLoop({
      stateMachine: database.stateMachine,
      detector,
      clock,
      timer: new ManualTimer(clock),
      policy: { getSystemState: () => null, decide: () => ({ type: 'run_task', task: { id: next.taskId } }) },
      executor: async () => next.report,
    });
    return {
      detector,
      async tick(taskId, report, note) {
        next = { taskId, report };
        const result = await loop.tick();
        ticks++;
        io.stdout(`${describeTick(taskId, result, note, detector)}\n`);
        clock.advance(60_000);
        await pause();
        return result;
      },
    };
  };
  let shared: DemoAutopilot | undefined;
  const ctx: DemoContext = {
    database,
    sessions,
    clock,
    workDir,
    get detector() {
      shared ??= autopilot();
      return shared.detector;
    },
    tick(taskId, report, note) {
      shared ??= autopilot();
      return shared.tick(taskId, report, note);
    },
    autopilot,
    print: (line) => io.stdout(`${line}\n`),
    columns: io.columns,
    pause,
    watch(emitter) {
      if (server) attachEmitter(server.handler.feed, emitter);
    },
  };

  try {
    if (options.serve) {
      server = await serveDashboard({
        reader: new SqliteStatusReader(database),
        port: options.port,
        clock,
        emitters: [sessions],
      });
      io.stdout(`loopguard dashboard: ${server.url}\n`);
    }
    const scenarios = options.scenarios ?? DEMO_SCENARIOS;
    for (const scenario of scenarios)
      for (const [id, title, status] of scenario.tasks)
        database.stateMachine.upsertTask({ id, title, status });
    for (const [i, scenario] of scenarios.entries()) {
      io.stdout(`\n${i + 1}. ${scenario.title}\n`);
      await scenario.run(ctx);
    }

    io.stdout(`\nThe newest recoveries, as SQL reads them from ${options.db}:\n${SEED_RECOVERY_SQL}\n\n`);
    const rows = database.db.prepare(SEED_RECOVERY_SQL).all() as Record<string, string | number>[];
    io.stdout(
      `${formatTable(
        ['id', `timestamp (${timeZoneName()})`, 'entry_type', 'topic', 'related_tasks', 'content'],
        rows.map((row) => [
          String(row.id),
          localTime(Number(row.timestamp)),
          String(row.entry_type),
          String(row.topic),
          String(row.related_tasks),
          String(row.content).split('\n')[0] ?? '',
        ]),
      )}\n`,
    );
    const reader = new SqliteStatusReader(database);
    const latestRun = await reader.latestRun();
    const snapshot = await statusSnapshot(
      reader,
      { limit: 100, cursor: undefined },
      {
        clock,
        attemptsRecorded: ticks,
        live: { running: false, tickCount: ticks },
        breaker: latestRun === undefined ? undefined : { ...latestRun },
      },
    );
    const seedShape = {
      running: snapshot.running,
      tickCount: snapshot.tickCount,
      loopDetection: snapshot.loopDetection,
      ...(snapshot.breaker
        ? { breaker: { state: snapshot.breaker.state, reason: snapshot.breaker.reason } }
        : {}),
    };
    io.stdout(`\nStatus (the /status body):\n${JSON.stringify(seedShape, null, 2)}\n`);
    const { sessions: agentSessions } = await reader.sessionPage({ limit: 20 });
    // as `status` lists them, for the terminal's width (qa48: a table of 134 columns, cut by an 80's)
    io.stdout(
      `\nThe agent sessions (loopguard status --db ${options.db}):\n${sessionList(agentSessions, io.columns)}\n`,
    );
    if (server) {
      io.stdout(`\nThe dashboard stays up at ${server.url} (Ctrl-C to stop).\n`);
      await untilSignal();
    }
  } finally {
    await server?.close();
    database.close();
  }
}

/** The demo's line for one tick: the seed's "Attempt N: …" lines, or why the task was skipped. */
function describeTick(taskId: string, result: ExecutionResult, note: string, detector: LoopDetector): string {
  const { details } = result;
  if (details.loopRecoveryApplied && details.loopDetection && details.recovery) {
    const loop = details.loopDetection;
    const cycle = loop.cycleTasks ? ` ${loop.cycleTasks.join(' -> ')}` : '';
    const outcome = details.recovery.applied ? details.recovery.action : details.recovery.reason;
    return `Attempt ${loop.attemptCount + 1}: LOOP DETECTED (${loop.loopType}${cycle}) - ${outcome}`;
  }
  if (details.skipped === 'escalated')
    return `   Tick ${result.tickNumber}: ${taskId} skipped - escalated, waiting for resolveEscalation()`;
  if (!result.success) return `   Tick ${result.tickNumber}: ${taskId} failed - ${details.error?.message}`;
  return `Attempt ${detector.getStatus()[taskId]?.attemptCount}: ${taskId} (${details.status}) - "${note}"`;
}
