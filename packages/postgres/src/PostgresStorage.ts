import {
  type AsyncStorage,
  type AsyncStoragePorts,
  type AsyncTransactionOptions,
  type Attempt,
  type Clock,
  InvalidInputError,
  systemClock,
} from '@loopguard/core';
import {
  assertFiniteNumber,
  assertNonEmptyString,
  attemptRowValues,
  checkStoredAttempt,
  describeValue,
  parseOptions,
  silentLogger,
} from '@loopguard/core/internal';
import pg from 'pg';
import { checkout, clientExecutor, inTransaction, type PgExecutor, poolExecutor } from './executor.js';
import { migratePostgres, type PgMigrationResult } from './migrations.js';
import { assertNoNul } from './nulText.js';
import { PgAttemptStore } from './PgAttemptStore.js';
import { PgStateMachine } from './PgStateMachine.js';
import { toStorageError } from './pgErrors.js';
import { type PostgresStorageOptions, postgresStorageOptionsSchema } from './postgresStorageOptions.js';

const INT8_OID = 20;

/** bigint columns (epoch ms, ids) come back as numbers: they stay below 2^53. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The text hashed into the advisory lock id of `lockKey`: `loopguard:<schema>:<key>`, with any NUL
 * written as the six characters `\u0000` (PostgreSQL's text cannot hold NUL). Two keys that map to
 * the same text only serialise each other, as two keys whose hashes collide do; they share no data.
 */
function lockText(schema: string, lockKey: string): string {
  return `loopguard:${schema}:${lockKey.replaceAll('\u0000', '\\u0000')}`;
}

/**
 * The {@link AsyncStorage} on PostgreSQL: both ports on one `pg` pool, and transactions on one
 * pooled connection. `transaction(fn, { lockKey })` first takes `pg_advisory_xact_lock` on the key
 * (within the storage's schema; any non-empty text, NUL included), so transactions on the same task serialise across every process
 * and host, and the lock is released by commit, rollback or a dropped connection — never left behind
 * by a killed worker.
 *
 * A connection that fails is discarded; the next call opens a new one, so after a server restart
 * the first calls fail with `StorageError` `storage_unavailable` and later ones succeed.
 *
 * @example
 * const storage = await openPostgresStorage({ connectionString: process.env.LOOPGUARD_PG });
 * const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
 * await storage.close();
 */
export class PostgresStorage implements AsyncStorage {
  /** Tasks, transitions and context entries (each call autocommits). */
  readonly stateMachine: PgStateMachine;
  /** Attempts (each call autocommits). */
  readonly attempts: PgAttemptStore;
  /** The pool's executor (statements that autocommit). */
  private readonly ex: PgExecutor;

  /**
   * Use {@link openPostgresStorage}, which validates the options and migrates.
   * @param pool - the pool both ports share.
   * @param schema - the schema of loopguard's tables (part of every lock key).
   * @param clock - the source of timestamps.
   * @param migration - what opening migrated.
   */
  constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    private readonly clock: Clock,
    readonly migration: PgMigrationResult,
  ) {
    this.ex = poolExecutor(pool);
    this.stateMachine = new PgStateMachine(this.ex, clock);
    this.attempts = new PgAttemptStore(this.ex);
  }

  /**
   * `SharedLoopDetector.recordAttempt`'s write in one statement: the function
   * `loopguard_append_attempt` (schema version 3) locks the key, stamps the attempt after the task's
   * newest stored one since `options.since`, inserts it and returns the timestamp stored.
   * @throws InvalidInputError naming the argument; nothing is written then.
   */
  async appendInOrder(attempt: Attempt, options: { since: number; lockKey: string }): Promise<number> {
    checkStoredAttempt(attempt, 'attempt');
    assertNoNul(attempt, 'attempt');
    assertFiniteNumber(options?.since, 'options.since');
    assertNonEmptyString(options.lockKey, 'options.lockKey');
    const { rows } = await this.ex.query<{ stored: number }>(
      'PostgresStorage.appendInOrder',
      'SELECT loopguard_append_attempt($1, $2, $3, $4, $5, $6, $7, $8) AS stored',
      [lockText(this.schema, options.lockKey), ...attemptRowValues(attempt), options.since],
      'loopguard_append_attempt',
    );
    return (rows[0] as { stored: number }).stored;
  }

  async transaction<T>(
    fn: (tx: AsyncStoragePorts) => Promise<T>,
    options: AsyncTransactionOptions = {},
  ): Promise<T> {
    if (typeof fn !== 'function')
      throw new InvalidInputError(`fn must be a function, got ${describeValue(fn)}`);
    const { lockKey } = options;
    if (lockKey !== undefined) assertNonEmptyString(lockKey, 'options.lockKey');
    return inTransaction(this.pool, 'PostgresStorage.transaction', async (client) => {
      const ex = clientExecutor(client);
      if (lockKey !== undefined) {
        await ex.query(
          'PostgresStorage.transaction (advisory lock)',
          'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
          [lockText(this.schema, lockKey)],
          'loopguard_lock',
        );
      }
      return fn({ stateMachine: new PgStateMachine(ex, this.clock), attempts: new PgAttemptStore(ex) });
    });
  }

  /** Closes the pool (waits for checked-out connections to be released). */
  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * Connects to PostgreSQL, migrates the schema (unless `migrate: false`) and returns the storage.
 *
 * @throws ConfigurationError naming a bad option; StorageError `storage_unavailable` when the server
 * cannot be reached, `schema_too_new` when the schema is newer than this package.
 * @example
 * const storage = await openPostgresStorage({ connectionString: 'postgres://loopguard@db:5432/agents', schema: 'loopguard' });
 */
export async function openPostgresStorage(options: PostgresStorageOptions = {}): Promise<PostgresStorage> {
  const parsed = parseOptions(postgresStorageOptionsSchema, options, 'openPostgresStorage options');
  const log = (parsed.logger ?? silentLogger()).child({ component: 'PostgresStorage' });
  const config: pg.PoolConfig = {
    max: parsed.max,
    connectionTimeoutMillis: parsed.connectionTimeoutMs,
    idleTimeoutMillis: parsed.idleTimeoutMs,
    options: `-c search_path=${parsed.schema} -c statement_timeout=${parsed.statementTimeoutMs}`,
    types,
  };
  for (const key of ['connectionString', 'host', 'port', 'user', 'password', 'database'] as const) {
    if (parsed[key] !== undefined) Object.assign(config, { [key]: parsed[key] });
  }
  const pool = new pg.Pool(config);
  // An idle connection that the server closes (restart, admin kill) must not crash the process;
  // the pool drops it and opens a new one on the next call.
  pool.on('error', (error) => {
    log.warn({ err: error }, `PostgreSQL connection lost while idle: ${error.message}`);
  });
  try {
    let migration: PgMigrationResult = { from: 0, to: 0, applied: [] };
    const { client, release } = await checkout(pool, 'openPostgresStorage: connecting');
    let failure: unknown;
    try {
      if (parsed.migrate) migration = await migratePostgres(client, parsed.schema);
    } catch (error) {
      failure = error;
      throw toStorageError(error, 'openPostgresStorage: migrating');
    } finally {
      release(failure);
    }
    return new PostgresStorage(pool, parsed.schema, parsed.clock ?? systemClock, migration);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}
