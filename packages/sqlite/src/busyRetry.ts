import type BetterSqlite3 from 'better-sqlite3';
import { isBusyError, toStorageError } from './sqliteErrors.js';

/**
 * How a write reacts to `SQLITE_BUSY` that escaped SQLite's own busy timeout.
 * @example
 * openLoopGuardDatabase('state.db', { busyRetry: { retries: 10, initialDelayMs: 10 } });
 */
export interface BusyRetryPolicy {
  /** Retries after the first failure. @default 5 */
  retries: number;
  /** Delay before the first retry, ms; doubled on each retry, with jitter. @default 25 */
  initialDelayMs: number;
}

/**
 * The default {@link BusyRetryPolicy}: 5 retries starting at 25 ms.
 * @example
 * openLoopGuardDatabase('state.db', { busyRetry: { ...DEFAULT_BUSY_RETRY, retries: 10 } });
 */
export const DEFAULT_BUSY_RETRY: Readonly<BusyRetryPolicy> = Object.freeze({
  retries: 5,
  initialDelayMs: 25,
});

// Made on the first wait, not at import: the hook's startup snapshot (a heap without
// SharedArrayBuffer) evaluates this module.
let sleeper: Int32Array | undefined;

/** Blocks the thread for `ms` milliseconds (the ports are synchronous, so backoff is too). */
function sleepSync(ms: number): void {
  sleeper ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Runs one storage operation, converting SQLite errors with {@link toStorageError}. When the
 * connection is not already inside a transaction and `op` fails with `SQLITE_BUSY` before it
 * changed anything (`started()` was not called, or `op` is a single statement), it is retried with
 * exponential backoff. Inside an outer transaction the error is passed to the outer level, which
 * owns the retry.
 *
 * @param db - the connection.
 * @param policy - retry policy.
 * @param operation - name for error messages, e.g. `SqliteAttemptStore.append`.
 * @param op - the work; may call `started()` once it has begun side effects beyond SQLite's lock.
 * @example
 * runStorageOp(db, DEFAULT_BUSY_RETRY, 'insert', () => insert.run(row));
 */
export function runStorageOp<T>(
  db: BetterSqlite3.Database,
  policy: Readonly<BusyRetryPolicy>,
  operation: string,
  op: (started: () => void) => T,
): T {
  if (db.inTransaction) {
    try {
      return op(() => {});
    } catch (error) {
      throw toStorageError(error, db.name, operation);
    }
  }
  let delay = policy.initialDelayMs;
  for (let attempt = 0; ; attempt++) {
    let started = false;
    try {
      return op(() => {
        started = true;
      });
    } catch (error) {
      if (!started && isBusyError(error) && attempt < policy.retries) {
        sleepSync(delay * (0.5 + Math.random()));
        delay *= 2;
        continue;
      }
      throw toStorageError(error, db.name, operation);
    }
  }
}
