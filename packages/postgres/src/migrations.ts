import { ConfigurationError, StorageError } from '@loopguard/core';
import type pg from 'pg';
import { toStorageError } from './pgErrors.js';
import { INITIAL_SCHEMA_SQL } from './schema/001_initial.js';
import { RECOVERY_VIEW_INDEX_SQL } from './schema/002_recoveryViewIndex.js';
import { APPEND_ATTEMPT_FUNCTION_SQL } from './schema/003_appendAttemptFunction.js';
import { SPEND_TOPICS_INDEX_SQL } from './schema/004_spendTopicsIndex.js';
import { REFUSAL_TOPIC_INDEX_SQL } from './schema/005_refusalTopicIndex.js';
import { ADAPTER_RUNS_SQL } from './schema/006_adapterRuns.js';
import { AGENT_SESSIONS_VIEW_SQL } from './schema/007_agentSessions.js';

/**
 * One step of the PostgreSQL schema: applied once, in order, inside the migration transaction.
 * @example
 * const step: PgMigration = { version: 2, name: 'notes', sql: 'ALTER TABLE tasks ADD COLUMN notes text' };
 */
export interface PgMigration {
  /** The schema version after this step; versions are 1, 2, 3, … in order. */
  readonly version: number;
  /** A short name, recorded in the version table. */
  readonly name: string;
  /** The DDL (and data changes) of the step; must not commit. */
  readonly sql: string;
}

/**
 * Every migration, in order. To change the schema, append one entry; never edit one that has shipped.
 * @example
 * PG_MIGRATIONS.at(-1)?.version === PG_SCHEMA_VERSION
 */
export const PG_MIGRATIONS: readonly PgMigration[] = Object.freeze([
  { version: 1, name: 'initial', sql: INITIAL_SCHEMA_SQL },
  { version: 2, name: 'recovery view index', sql: RECOVERY_VIEW_INDEX_SQL },
  { version: 3, name: 'append attempt function', sql: APPEND_ATTEMPT_FUNCTION_SQL },
  { version: 4, name: 'spend topics index', sql: SPEND_TOPICS_INDEX_SQL },
  { version: 5, name: 'refusal topic index', sql: REFUSAL_TOPIC_INDEX_SQL },
  { version: 6, name: 'adapter runs', sql: ADAPTER_RUNS_SQL },
  { version: 7, name: 'agent sessions', sql: AGENT_SESSIONS_VIEW_SQL },
]);

/**
 * The schema version this build of `@loopguard/postgres` writes.
 * @example
 * const { to } = await migratePostgres(pool); // to === PG_SCHEMA_VERSION
 */
export const PG_SCHEMA_VERSION: number = PG_MIGRATIONS.length;

/**
 * The version table: one row per applied migration.
 * @example
 * SELECT version, name, applied_at FROM loopguard_schema_migrations ORDER BY version;
 */
export const VERSION_TABLE = 'loopguard_schema_migrations';

/**
 * What {@link migratePostgres} did.
 * @example
 * const { applied } = await migratePostgres(pool); // ['initial'] on an empty schema
 */
export interface PgMigrationResult {
  /** Version before. */
  from: number;
  /** Version after. */
  to: number;
  /** Names of the migrations applied, oldest first (empty when the schema was current). */
  applied: string[];
}

/**
 * Creates `schema` when missing and brings it to the last migration's version. Runs in
 * one transaction that first takes a transaction-scoped advisory lock keyed on the schema name, so
 * that workers starting together migrate once and the others wait, then see the result; a failure
 * leaves the old schema.
 *
 * @param client - a connected client (not a pool: the whole migration runs on one connection).
 * @param schema - the schema to create (when missing) and migrate; must be first on the client's `search_path`.
 * @param migrations - the migrations to apply. @default PG_MIGRATIONS
 * @throws StorageError `schema_too_new` when the schema's version is newer than known;
 * `storage_unavailable` when the server cannot be reached; `storage_error` when a step fails.
 * @example
 * const client = await pool.connect();
 * try { await migratePostgres(client, 'public'); } finally { client.release(); }
 */
export async function migratePostgres(
  client: pg.ClientBase,
  schema = 'public',
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<PgMigrationResult> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new ConfigurationError(
        `migrations[${i}] (${m.name}) has version ${m.version}; expected ${i + 1}`,
      );
    }
  });
  const latest = migrations.length;
  try {
    await client.query('BEGIN');
    try {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('loopguard:migrate:' || $1, 0))", [
        schema,
      ]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${VERSION_TABLE}`,
      );
      const from = rows[0]?.version ?? 0;
      if (from > latest) {
        throw new StorageError(
          'schema_too_new',
          `the PostgreSQL schema has version ${from}, newer than the version this @loopguard/postgres knows (${latest}); upgrade @loopguard/postgres`,
        );
      }
      const applied: string[] = [];
      for (const migration of migrations.slice(from)) {
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${VERSION_TABLE} (version, name) VALUES ($1, $2)`, [
          migration.version,
          migration.name,
        ]);
        applied.push(migration.name);
      }
      await client.query('COMMIT');
      return { from, to: Math.max(from, latest), applied };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } catch (error) {
    throw toStorageError(error, `migrating the PostgreSQL schema to version ${latest}`);
  }
}
