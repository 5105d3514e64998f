import { ConfigurationError, StorageError } from '@loopguard/core';
import type BetterSqlite3 from 'better-sqlite3';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { up001Initial } from './schema/001_initial.js';
import { up002Iterations } from './schema/002_iterations.js';
import { up003AttemptSummary } from './schema/003_attemptSummary.js';
import { up004Runs } from './schema/004_runs.js';
import { up005HookSessions } from './schema/005_hookSessions.js';
import { up006RecoveryViewIndex } from './schema/006_recoveryViewIndex.js';
import { up007Spend } from './schema/007_spend.js';
import { up008AgentSessions } from './schema/008_agentSessions.js';
import { up009HookSessionText } from './schema/009_hookSessionText.js';
import { up010RefusedCalls } from './schema/010_refusedCalls.js';
import { up011AdapterSpend } from './schema/011_adapterSpend.js';
import { up012SessionEnd } from './schema/012_sessionEnd.js';
import { up013AgentProcess } from './schema/013_agentProcess.js';
import { up014AdapterRuns } from './schema/014_adapterRuns.js';
import { up015RunLimits } from './schema/015_runLimits.js';
import { up016RunsByDoor } from './schema/016_runsByDoor.js';
import { SCHEMA_VERSION } from './schemaVersion.js';
import { isBusyError, toStorageError } from './sqliteErrors.js';

/**
 * One step of the schema: applied once, in order, inside the migration transaction.
 * @example
 * const step: Migration = { version: 2, name: 'checkpoints', up: (db) => db.exec('CREATE TABLE …') };
 */
export interface Migration {
  /**
   * The `PRAGMA user_version` the database has after this step; versions increase strictly. A gap
   * is allowed (a number reserved by a migration still being written on another branch).
   */
  readonly version: number;
  /** A short name, for messages and docs. */
  readonly name: string;
  /** Applies the step (DDL and data changes); runs inside a transaction, must not commit. */
  up(db: BetterSqlite3.Database): void;
}

/**
 * Every migration, in order. To change the schema, append one entry (and its file under
 * `src/schema/`); never edit an entry that has shipped.
 *
 * @example
 * // src/migrations.ts
 * export const MIGRATIONS = [
 *   { version: 1, name: 'initial', up: up001Initial },
 *   { version: 2, name: 'iteration checkpoints', up: up002Checkpoints },
 * ];
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  { version: 1, name: 'initial', up: up001Initial },
  { version: 2, name: 'iteration sessions', up: up002Iterations },
  { version: 3, name: 'task attempt summary', up: up003AttemptSummary },
  { version: 4, name: 'guarded runs', up: up004Runs },
  { version: 5, name: 'hook sessions', up: up005HookSessions },
  { version: 6, name: 'recovery view index', up: up006RecoveryViewIndex },
  { version: 7, name: 'spend ledgers', up: up007Spend },
  { version: 8, name: 'agent sessions', up: up008AgentSessions },
  { version: 9, name: 'hook session text', up: up009HookSessionText },
  { version: 10, name: 'refused calls', up: up010RefusedCalls },
  { version: 11, name: 'adapter spend', up: up011AdapterSpend },
  { version: 12, name: 'session end', up: up012SessionEnd },
  { version: 13, name: 'agent process', up: up013AgentProcess },
  { version: 14, name: 'adapter runs', up: up014AdapterRuns },
  { version: 15, name: 'run limits', up: up015RunLimits },
  { version: 16, name: 'runs by door', up: up016RunsByDoor },
]);

export { SCHEMA_VERSION };

/**
 * What {@link migrate} did.
 * @example
 * const { applied } = openLoopGuardDatabase('state.db').migration; // ['initial'] on a new file
 */
export interface MigrationResult {
  /** `user_version` before. */
  from: number;
  /** `user_version` after (equals {@link SCHEMA_VERSION}). */
  to: number;
  /** Names of the migrations applied, oldest first (empty when the schema was current). */
  applied: string[];
}

function userVersion(db: BetterSqlite3.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function tooNew(path: string, version: number): StorageError {
  return new StorageError(
    'schema_too_new',
    `database ${JSON.stringify(path)} has schema version ${version}, newer than the version this @loopguard/sqlite knows (${SCHEMA_VERSION}); upgrade @loopguard/sqlite to open it`,
  );
}

/**
 * Options of {@link migrate}.
 * @example
 * migrate(db, { migrations: [...MIGRATIONS, myTestMigration] });
 */
export interface MigrateOptions {
  /** The migrations to apply (tests use shorter lists). @default MIGRATIONS */
  migrations?: readonly Migration[];
  /** Retry policy when `SQLITE_BUSY` escapes the busy timeout. @default { retries: 5, initialDelayMs: 25 } */
  busyRetry?: BusyRetryPolicy;
}

/**
 * Brings the database to the last migration's version: applies every pending migration and sets
 * `PRAGMA user_version` in one `BEGIN IMMEDIATE` transaction, so that a crash leaves the old
 * schema and concurrent openers migrate once. `openLoopGuardDatabase` calls it.
 *
 * @throws StorageError `schema_too_new` when the database's version is newer than known;
 * `storage_unavailable` when the file is not a database, read-only or a migration fails.
 * @example
 * const { from, to } = migrate(new Database('loopguard.db'));
 */
export function migrate(db: BetterSqlite3.Database, options: MigrateOptions = {}): MigrationResult {
  const migrations = options.migrations ?? MIGRATIONS;
  const path = db.name;
  const latest = migrations.at(-1)?.version ?? 0;
  migrations.forEach((m, i) => {
    const previous = i === 0 ? 0 : (migrations[i - 1]?.version ?? 0);
    if (!Number.isInteger(m.version) || m.version <= previous) {
      throw new ConfigurationError(
        `migrations[${i}] (${m.name}) has version ${m.version}; expected an integer greater than ${previous}`,
      );
    }
  });
  const operation = `migrating to schema version ${latest}`;
  try {
    return runStorageOp(db, options.busyRetry ?? DEFAULT_BUSY_RETRY, operation, () => {
      const before = userVersion(db);
      if (before > latest) throw tooNew(path, before);
      if (before === latest) return { from: before, to: before, applied: [] };
      return db
        .transaction((): MigrationResult => {
          const from = userVersion(db); // another process may have migrated meanwhile
          if (from > latest) throw tooNew(path, from);
          const applied: string[] = [];
          for (const migration of migrations.filter((m) => m.version > from)) {
            migration.up(db);
            applied.push(migration.name);
          }
          db.pragma(`user_version = ${latest | 0}`);
          return { from, to: latest, applied };
        })
        .immediate();
    });
  } catch (error) {
    const converted = toStorageError(error, path, operation);
    if (
      converted instanceof StorageError &&
      converted.code === 'storage_error' &&
      !isBusyError(converted.cause)
    ) {
      throw new StorageError('storage_unavailable', converted.message, { cause: converted.cause });
    }
    throw converted;
  }
}

/**
 * Checks, without writing, that the database is at {@link SCHEMA_VERSION} (for read-only opens).
 * @throws StorageError `schema_too_new` or `storage_unavailable`.
 * @example
 * assertSchemaCurrent(new Database('state.db', { readonly: true }));
 */
export function assertSchemaCurrent(db: BetterSqlite3.Database): void {
  let version: number;
  try {
    version = userVersion(db);
  } catch (error) {
    throw toStorageError(error, db.name, 'reading the schema version');
  }
  if (version > SCHEMA_VERSION) throw tooNew(db.name, version);
  if (version < SCHEMA_VERSION) {
    throw new StorageError(
      'storage_unavailable',
      `database ${JSON.stringify(db.name)} has schema version ${version}, older than ${SCHEMA_VERSION}; open it once without readonly to migrate it`,
    );
  }
}
