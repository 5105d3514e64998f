import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  type Clock,
  ConfigurationError,
  InvalidInputError,
  type Storage,
  StorageError,
  storageOf,
  systemClock,
} from '@loopguard/core';
import { clockSchema, describeValue, lazySchema, parseOptions } from '@loopguard/core/internal';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { assertSchemaCurrent, type MigrationResult, migrate } from './migrations.js';
import { SqliteAttemptStore } from './SqliteAttemptStore.js';
import { SqliteStateMachine } from './SqliteStateMachine.js';
import { toStorageError } from './sqliteErrors.js';

/**
 * Options of {@link openLoopGuardDatabase}.
 * @example
 * openLoopGuardDatabase('state.db', { synchronous: 'FULL', busyTimeoutMs: 10_000 });
 */
export interface OpenLoopGuardDatabaseOptions {
  /**
   * `PRAGMA synchronous`. With WAL, `NORMAL` never corrupts the database and loses no committed
   * transaction when a process crashes; only a power loss or OS crash may roll back the last
   * commits. `FULL` also survives those, at the cost of an fsync per commit.
   * @default 'NORMAL'
   */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * How long a write waits for another connection's lock before SQLite gives up (`busy_timeout`).
   * Integer from 0 to 2^31 − 1 ms (a larger value would wrap around in SQLite's 32-bit setting).
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * What the adapters do when `SQLITE_BUSY` still escapes the busy timeout: retry with exponential
   * backoff, then throw `StorageError('storage_error')`. `initialDelayMs` is at most 2^31 − 1 ms.
   * @default { retries: 5, initialDelayMs: 25 }
   */
  busyRetry?: BusyRetryPolicy;
  /**
   * `PRAGMA wal_autocheckpoint`, in pages (4 KiB each). Each checkpoint costs two fsyncs even with
   * `synchronous = NORMAL`; SQLite's default of 1000 pages makes them the main cost of a write burst
   * on a real disk. The WAL file is truncated back to 64 MiB after a checkpoint (`journal_size_limit`).
   * @default 10000
   */
  walAutocheckpointPages?: number;
  /** Source of task and context-entry timestamps. @default systemClock */
  clock?: Clock;
  /**
   * Open read-only: no migration, no writes (a write throws `StorageError('storage_unavailable')`).
   * The schema must already be current. Only for a path.
   * @default false
   */
  readonly?: boolean;
  /**
   * Create the file's directory (recursively) when it is missing, instead of throwing; the
   * folders made are `0700` (a new database file is always made `0600`), and the file's own folder
   * gets a `.gitignore` of `*` (what it holds is never for a commit).
   * @default false
   */
  createDirectory?: boolean;
}

/**
 * What {@link openLoopGuardDatabase} returns.
 * @example
 * const { db, stateMachine, attemptStore, close } = openLoopGuardDatabase(':memory:');
 */
export interface LoopGuardDatabase {
  /** The better-sqlite3 connection, for plain SQL. */
  readonly db: Database.Database;
  /** The state-machine port on `db`. */
  readonly stateMachine: SqliteStateMachine;
  /** The attempt-store port on the same connection (covered by `stateMachine.transaction`). */
  readonly attemptStore: SqliteAttemptStore;
  /**
   * Both ports with the transaction that commits their writes together (`BEGIN IMMEDIATE` on `db`):
   * what a `LoopDetector` takes.
   * @example new LoopDetector(openLoopGuardDatabase('state.db').storage)
   */
  readonly storage: Storage;
  /** What the migration step did on open (`applied` is empty when the schema was current or read-only). */
  readonly migration: MigrationResult;
  /**
   * Closes the connection when `openLoopGuardDatabase` opened it (a `Database` you passed in stays
   * open: you own it). Idempotent.
   */
  close(): void;
}

/** Largest value SQLite keeps in its 32-bit integer settings (`busy_timeout`, `wal_autocheckpoint`). */
const INT32_MAX = 2 ** 31 - 1;

/**
 * zod schema of {@link OpenLoopGuardDatabaseOptions}; unknown keys are rejected so that typos surface.
 * Made on first use (`lazySchema`): a hook call opens a database through here only when it creates
 * or migrates one.
 */
const optionsSchema = lazySchema(() =>
  z.strictObject({
    synchronous: z.enum(['NORMAL', 'FULL']).optional(),
    busyTimeoutMs: z.number().int().min(0).max(INT32_MAX).optional(),
    busyRetry: z
      .strictObject({
        retries: z.number().int().min(0),
        initialDelayMs: z.number().finite().min(0).max(INT32_MAX),
      })
      .optional(),
    walAutocheckpointPages: z.number().int().min(0).max(INT32_MAX).optional(),
    clock: clockSchema().optional(),
    readonly: z.boolean().optional(),
    createDirectory: z.boolean().optional(),
  }),
);

function unavailable(path: string, problem: string, cause?: unknown): StorageError {
  return new StorageError(
    'storage_unavailable',
    `cannot open loopguard database ${JSON.stringify(path)}: ${problem}`,
    cause === undefined ? undefined : { cause },
  );
}

/** The mode of a folder {@link OpenLoopGuardDatabaseOptions.createDirectory} makes. */
const PRIVATE_FOLDER = 0o700;

/** The `.gitignore` of a folder made for the database: it holds the database and its files alone. */
const FOLDER_GITIGNORE = "# loopguard database (the agents' commands and results): not for git\n*\n";

/**
 * Creates the database file empty, mode 0600, before SQLite does: SQLite would make it with 0644
 * under the common umask, and its `-wal` and `-shm` take the database file's mode, so the
 * commands and results stored would be readable by every local user. An empty file is a new
 * database to SQLite. A file made meanwhile by another process is left as it is.
 */
function createPrivate(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw unavailable(path, 'it cannot be created', error);
  }
}

/** Checks a file path before SQLite sees it, so that the common failures get a clear message. */
function checkPath(path: string, options: OpenLoopGuardDatabaseOptions): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) {
    if (options.createDirectory === true && options.readonly !== true) {
      try {
        // this user's alone: what loopguard stores quotes the agents' commands and results
        mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER });
        // and out of git: in a repository, `git add -A` would commit and push it (secrets64)
        writeFileSync(join(dir, '.gitignore'), FOLDER_GITIGNORE, { flag: 'wx' });
      } catch (error) {
        throw unavailable(path, `its directory ${JSON.stringify(dir)} cannot be created`, error);
      }
    } else {
      throw unavailable(
        path,
        `the directory ${JSON.stringify(dir)} does not exist (create it, or pass createDirectory: true)`,
      );
    }
  }
  if (!existsSync(path)) {
    if (options.readonly === true)
      throw unavailable(path, 'the file does not exist (readonly: true never creates it)');
    try {
      accessSync(dir, constants.W_OK);
    } catch (error) {
      throw unavailable(
        path,
        `the file does not exist and the directory ${JSON.stringify(dir)} is not writable`,
        error,
      );
    }
    createPrivate(path);
    return;
  }
  if (statSync(path).isDirectory()) throw unavailable(path, 'it is a directory, not a database file');
  if (options.readonly === true) return;
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw unavailable(
      path,
      'the file is read-only for this process (pass readonly: true to only read it)',
      error,
    );
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw unavailable(
      path,
      `its directory ${JSON.stringify(dir)} is not writable (SQLite needs to create the -wal and -shm files there)`,
      error,
    );
  }
}

/**
 * Opens (or creates) a loopguard database and returns the storage ports on one shared connection.
 *
 * On open: `busy_timeout`, `foreign_keys = ON`, `journal_mode = WAL` and `wal_autocheckpoint` (files
 * only), `synchronous`,
 * then pending migrations in one transaction (see `migrate`). Several processes may open the same
 * file: writes serialise on SQLite's write lock, and none is lost.
 *
 * @param pathOrDb - a file path, `':memory:'`, or an open better-sqlite3 `Database` (configured and
 * migrated the same way; `close()` then leaves it open).
 * @param options - see {@link OpenLoopGuardDatabaseOptions}.
 * @throws StorageError `storage_unavailable` (missing directory, not a SQLite file, read-only file or
 * directory) or `schema_too_new` (written by a newer loopguard), naming the path.
 * @throws ConfigurationError when an option is invalid.
 * @example
 * import { LoopDetector } from '@loopguard/core';
 * import { openLoopGuardDatabase } from '@loopguard/sqlite';
 *
 * const store = openLoopGuardDatabase('.loopguard/state.db', { createDirectory: true });
 * const detector = new LoopDetector(store.storage);
 * // … on shutdown
 * store.close();
 */
export function openLoopGuardDatabase(
  pathOrDb: string | Database.Database,
  options: OpenLoopGuardDatabaseOptions = {},
): LoopGuardDatabase {
  parseOptions(optionsSchema(), options, 'openLoopGuardDatabase options');
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
  let readonly = options.readonly === true;
  let db: Database.Database;
  let owned: boolean;
  if (typeof pathOrDb === 'string') {
    if (pathOrDb.length === 0)
      throw new InvalidInputError('pathOrDb must be a file path or ":memory:", got an empty string');
    const memory = pathOrDb === ':memory:';
    if (memory && readonly) throw new ConfigurationError('options.readonly cannot be used with ":memory:"');
    if (!memory) checkPath(pathOrDb, options);
    try {
      db = new Database(pathOrDb, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs });
    } catch (error) {
      const converted = toStorageError(error, pathOrDb, 'opening');
      throw converted instanceof StorageError ? converted : unavailable(pathOrDb, String(error), error);
    }
    owned = true;
  } else if (pathOrDb instanceof Database) {
    if (!pathOrDb.open) throw new InvalidInputError('pathOrDb is a closed Database');
    db = pathOrDb;
    owned = false;
    readonly ||= db.readonly;
  } else {
    throw new InvalidInputError(
      `pathOrDb must be a path or a better-sqlite3 Database, got ${describeValue(pathOrDb)}`,
    );
  }

  try {
    const migration = configure(db, options, busyTimeoutMs, busyRetry, readonly);
    const clock = options.clock ?? systemClock;
    const stateMachine = new SqliteStateMachine({ db, clock, busyRetry });
    const attemptStore = new SqliteAttemptStore({ db, busyRetry });
    let closed = false;
    return {
      db,
      stateMachine,
      attemptStore,
      storage: storageOf(stateMachine, attemptStore),
      migration,
      close() {
        if (closed) return;
        closed = true;
        if (owned && db.open) db.close();
      },
    };
  } catch (error) {
    if (owned && db.open) db.close();
    throw error;
  }
}

function configure(
  db: Database.Database,
  options: OpenLoopGuardDatabaseOptions,
  busyTimeoutMs: number,
  busyRetry: Readonly<BusyRetryPolicy>,
  readonly: boolean,
): MigrationResult {
  const path = db.name;
  runStorageOp(db, busyRetry, 'configuring the connection', () => {
    db.pragma(`busy_timeout = ${busyTimeoutMs | 0}`);
    db.pragma('foreign_keys = ON');
    // The first real read: a file that is not SQLite fails here with SQLITE_NOTADB.
    db.pragma('user_version', { simple: true });
    if (!readonly && !db.memory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal')
        throw unavailable(path, `it cannot be switched to WAL journal mode (got ${String(mode)})`);
      db.pragma(`wal_autocheckpoint = ${(options.walAutocheckpointPages ?? 10_000) | 0}`);
      db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    }
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  });
  if (readonly) {
    assertSchemaCurrent(db);
    const version = db.pragma('user_version', { simple: true }) as number;
    return { from: version, to: version, applied: [] };
  }
  return migrate(db, { busyRetry });
}
