import { dirname } from 'node:path';

import { type Clock, InvalidInputError, systemClock } from '@loopguard/core';
import type { BreakerState, BreakerTransition } from '@loopguard/core/breaker';

import { assertNonEmptyString } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { liveRunOwner } from './runLock.js';

/** Where a run of `loopguard run` stands. */
export type RunStatus =
  | 'running'
  | 'paused'
  | 'aborted'
  | 'completed'
  | 'budget_spent'
  | 'interrupted'
  | 'failed';

/** One run of `loopguard run`, as stored in the `runs` table. */
export interface RunRecord {
  /** The run id (also the directory under `.loopguard/runs/`). */
  id: string;
  /** The agent command, as given after `--`. */
  command: string[];
  /** The run's options (flags and configuration file merged), to resume with the same ones. */
  options: Record<string, unknown>;
  /** The directory the run works in. */
  cwd: string;
  /** Where the run stands. */
  status: RunStatus;
  /** The last finished iteration (0 before the first). */
  iteration: number;
  /** The breaker's state. */
  breakerState: BreakerState;
  /** The breaker's snapshot (JSON as stored; may be corrupt: the breaker validates it). */
  breaker: unknown;
  /** Index into the model progression (escalation). */
  modelIndex: number;
  /** Why the run last stopped or paused; `null` while running. */
  reason: string | null;
  /** The process exit code the run ended with; `null` while running. */
  exitCode: number | null;
  /** When it started, epoch ms. */
  startedAt: number;
  /** When it last changed, epoch ms. */
  updatedAt: number;
}

/** One finished iteration of a run, as stored in `run_iterations`. */
export interface RunIterationRecord {
  /** The run. */
  runId: string;
  /** 1-based. */
  iteration: number;
  /** Epoch ms. */
  startedAt: number;
  /** Epoch ms. */
  endedAt: number;
  /** The agent's exit code; `null` when it was killed by a signal. */
  exitCode: number | null;
  /** How the iteration counted for the breaker (`stopped`: the step-level detector stopped it). */
  progress: 'progress' | 'stalled' | 'unknown' | 'infrastructure' | 'stopped';
  /** The signals' readings. */
  signals: unknown[];
}

/** Options of {@link SqliteRunStore}. */
export interface SqliteRunStoreOptions {
  /** An open connection whose schema is version 4 or later (`openLoopGuardDatabase` migrates it). */
  db: BetterSqlite3.Database;
  /** Source of `updated_at`. @default systemClock */
  clock?: Clock;
  /** What to do when `SQLITE_BUSY` escapes the busy timeout. @default { retries: 5, initialDelayMs: 25 } */
  busyRetry?: BusyRetryPolicy;
  /**
   * The directory of the run lock (`run.lock`): a `running` run is reported `interrupted` unless the
   * live holder of the lock is that run. `null` turns the check off.
   * @default the database file's directory; `null` for an in-memory database
   */
  stateDir?: string | null;
}

interface RunRow {
  id: string;
  command: string;
  options: string;
  cwd: string;
  status: RunStatus;
  iteration: number;
  breaker_state: BreakerState;
  breaker: string | null;
  model_index: number;
  reason: string | null;
  exit_code: number | null;
  started_at: number;
  updated_at: number;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text; // corrupt: handed over as it is, the breaker reports it
  }
}

/** Why a `running` run whose loopguard process is gone is reported `interrupted`. */
export const OWNER_GONE_REASON =
  'its loopguard process is gone (killed or crashed); loopguard resume continues it';

function runOf(row: RunRow, liveRunId: string | null | undefined): RunRecord {
  const orphaned = row.status === 'running' && liveRunId !== undefined && liveRunId !== row.id;
  return {
    id: row.id,
    command: JSON.parse(row.command) as string[],
    options: JSON.parse(row.options) as Record<string, unknown>,
    cwd: row.cwd,
    status: orphaned ? 'interrupted' : row.status,
    iteration: row.iteration,
    breakerState: row.breaker_state,
    breaker: parseJson(row.breaker),
    modelIndex: row.model_index,
    reason: orphaned ? OWNER_GONE_REASON : row.reason,
    exitCode: row.exit_code,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Durable state of `loopguard run` (schema version 4): runs, their breaker state and transitions,
 * and their iterations, every row scoped to its run id. This is also the read API of dashboards:
 * {@link listRuns}, {@link getRun} and {@link transitions} never write.
 *
 * @example
 * const { db } = openLoopGuardDatabase('.loopguard/state.db', { readonly: true });
 * const runs = new SqliteRunStore({ db });
 * for (const run of runs.listRuns()) console.log(run.id, run.status, run.breakerState);
 * runs.transitions('run-1'); // [{ runId, at, from: 'CLOSED', to: 'OPEN', reason }, …]
 */
export class SqliteRunStore {
  private readonly db: BetterSqlite3.Database;
  private readonly clock: Clock;
  private readonly busyRetry: BusyRetryPolicy;
  private readonly stateDir: string | null;

  constructor(options: SqliteRunStoreOptions) {
    this.db = options.db;
    const file = options.db.memory || options.db.name === '' ? null : options.db.name;
    this.stateDir = options.stateDir !== undefined ? options.stateDir : file === null ? null : dirname(file);
    this.clock = options.clock ?? systemClock;
    this.busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
  }

  /**
   * Creates a run (status `running`, iteration 0, breaker `CLOSED`).
   * @throws InvalidInputError when the id is empty or already used, or the command is empty.
   */
  createRun(input: {
    id: string;
    command: readonly string[];
    options: Record<string, unknown>;
    cwd: string;
  }): RunRecord {
    assertNonEmptyString(input.id, 'id');
    if (!Array.isArray(input.command) || input.command.length === 0) {
      throw new InvalidInputError('command must be a non-empty array of strings');
    }
    if (this.getRun(input.id) !== null)
      throw new InvalidInputError(`run ${JSON.stringify(input.id)} already exists`);
    const now = this.clock.now();
    this.write('SqliteRunStore.createRun', () =>
      this.db
        .prepare(
          'INSERT INTO runs (id, command, options, cwd, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(input.id, JSON.stringify(input.command), JSON.stringify(input.options), input.cwd, now, now),
    );
    return this.getRun(input.id) as RunRecord;
  }

  /** The run with `id`, or `null`. */
  getRun(id: string): RunRecord | null {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    return row === undefined ? null : runOf(row, this.liveRunId(row));
  }

  /** Every run, newest first (at most `limit`). @default limit 100 */
  listRuns(limit = 100): RunRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM runs ORDER BY started_at DESC, id DESC LIMIT ?')
      .all(limit) as RunRow[];
    const live = rows.some((row) => row.status === 'running') ? this.liveRunId() : undefined;
    return rows.map((row) => runOf(row, live));
  }

  /**
   * Updates a run's progress: any of status, iteration, breaker snapshot and state, model index,
   * reason and exit code.
   * @throws InvalidInputError when the run does not exist.
   */
  updateRun(
    id: string,
    changes: Partial<
      Pick<RunRecord, 'status' | 'iteration' | 'breakerState' | 'modelIndex' | 'reason' | 'exitCode'>
    > & {
      breaker?: unknown;
    },
  ): void {
    const columns: Record<string, unknown> = {
      status: changes.status,
      iteration: changes.iteration,
      breaker_state: changes.breakerState,
      breaker: changes.breaker === undefined ? undefined : JSON.stringify(changes.breaker),
      model_index: changes.modelIndex,
      reason: changes.reason,
      exit_code: changes.exitCode,
    };
    const set = Object.entries(columns).filter(([, value]) => value !== undefined);
    const sql = `UPDATE runs SET ${[...set.map(([name]) => `${name} = ?`), 'updated_at = ?'].join(', ')} WHERE id = ?`;
    const result = this.write('SqliteRunStore.updateRun', () =>
      this.db.prepare(sql).run(...set.map(([, value]) => value), this.clock.now(), id),
    );
    if (result.changes === 0) throw new InvalidInputError(`run ${JSON.stringify(id)} does not exist`);
  }

  /** Appends a breaker transition (and sets the run's `breaker_state`) in one transaction. */
  appendTransition(transition: BreakerTransition): void {
    this.write('SqliteRunStore.appendTransition', () =>
      this.db.transaction(() => {
        this.db
          .prepare(
            'INSERT INTO breaker_transitions (run_id, at, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?)',
          )
          .run(transition.runId, transition.at, transition.from, transition.to, transition.reason);
        this.db
          .prepare('UPDATE runs SET breaker_state = ?, updated_at = ? WHERE id = ?')
          .run(transition.to, this.clock.now(), transition.runId);
      })(),
    );
  }

  /** The breaker transitions of a run, oldest first; with `sinceId`, only the newer ones (for polling). */
  transitions(runId: string, sinceId = 0): Array<BreakerTransition & { id: number }> {
    const rows = this.db
      .prepare(
        'SELECT id, run_id, at, from_state, to_state, reason FROM breaker_transitions WHERE run_id = ? AND id > ? ORDER BY id',
      )
      .all(runId, sinceId) as Array<{
      id: number;
      run_id: string;
      at: number;
      from_state: BreakerState;
      to_state: BreakerState;
      reason: string;
    }>;
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      at: r.at,
      from: r.from_state,
      to: r.to_state,
      reason: r.reason,
    }));
  }

  /**
   * Records a finished iteration. A record is never replaced: one with the same run and iteration
   * number already stored is an error (two processes running the same iterations).
   * @throws InvalidInputError when the iteration is already recorded.
   */
  recordIteration(record: RunIterationRecord): void {
    const exists = this.db
      .prepare('SELECT 1 FROM run_iterations WHERE run_id = ? AND iteration = ?')
      .get(record.runId, record.iteration);
    if (exists !== undefined)
      throw new InvalidInputError(
        `iteration ${record.iteration} of run ${JSON.stringify(record.runId)} is already recorded; iteration records are never replaced`,
      );
    this.write('SqliteRunStore.recordIteration', () =>
      this.db
        .prepare(
          `INSERT INTO run_iterations (run_id, iteration, started_at, ended_at, exit_code, progress, signals)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.runId,
          record.iteration,
          record.startedAt,
          record.endedAt,
          record.exitCode,
          record.progress,
          JSON.stringify(record.signals),
        ),
    );
  }

  /** The iterations of a run, oldest first. */
  iterations(runId: string): RunIterationRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM run_iterations WHERE run_id = ? ORDER BY iteration')
      .all(runId) as Array<{
      run_id: string;
      iteration: number;
      started_at: number;
      ended_at: number;
      exit_code: number | null;
      progress: RunIterationRecord['progress'];
      signals: string;
    }>;
    return rows.map((r) => ({
      runId: r.run_id,
      iteration: r.iteration,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      exitCode: r.exit_code,
      progress: r.progress,
      signals: JSON.parse(r.signals) as unknown[],
    }));
  }

  /**
   * The run the live holder of the run lock works on (`null`: no live run), or `undefined` when the
   * check is off or not needed.
   */
  private liveRunId(row?: RunRow): string | null | undefined {
    if (this.stateDir === null || (row !== undefined && row.status !== 'running')) return undefined;
    return liveRunOwner(this.stateDir)?.runId ?? null;
  }

  private write<T>(operation: string, op: () => T): T {
    return runStorageOp(this.db, this.busyRetry, operation, op);
  }
}
