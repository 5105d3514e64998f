import type { Clock } from '@loopguard/core';
import type { Logger } from '@loopguard/core/internal';
import { clockSchema, loggerSchema } from '@loopguard/core/internal';
import { z } from 'zod';

/**
 * Options of `openPostgresStorage`. Give a `connectionString`, or the individual connection fields
 * (`host`, `port`, `user`, `password`, `database`); libpq's `PG*` environment variables fill what is
 * left out, as with `psql`.
 * @example
 * await openPostgresStorage({ connectionString: 'postgres://loopguard@db.internal:5432/agents', schema: 'loopguard', max: 20 });
 */
export interface PostgresStorageOptions {
  /**
   * A libpq connection URI, e.g. `postgres://user:secret@db:5432/agents?sslmode=require`.
   * @default undefined (the fields below and the `PG*` variables)
   */
  connectionString?: string;
  /** Server host name or Unix-socket directory. @default PGHOST, else localhost */
  host?: string;
  /** Server port. @default PGPORT, else 5432 */
  port?: number;
  /** Role to connect as. @default PGUSER, else the OS user */
  user?: string;
  /** Password. @default PGPASSWORD, or none */
  password?: string;
  /** Database. @default PGDATABASE, else the user name */
  database?: string;
  /**
   * The schema holding loopguard's tables: created when missing and put first on each
   * connection's `search_path`, so several loopguard deployments can share one database.
   * @default 'public'
   */
  schema?: string;
  /** Most connections the pool opens (per process). @default 10 */
  max?: number;
  /** How long to wait for a connection before failing with `storage_unavailable`. @default 5000 */
  connectionTimeoutMs?: number;
  /** How long an idle connection stays open. @default 30000 */
  idleTimeoutMs?: number;
  /** Server-side `statement_timeout` per statement, ms (0: none). @default 30000 */
  statementTimeoutMs?: number;
  /** Apply pending migrations on open (under an advisory lock). @default true */
  migrate?: boolean;
  /** Source of task, entry and attempt timestamps. @default systemClock */
  clock?: Clock;
  /** pino logger (connection errors of idle connections are logged at `warn`). @default silent */
  logger?: Logger;
}

/** Options validated, defaults applied. */
export const postgresStorageOptionsSchema = z
  .object({
    connectionString: z.string().min(1).optional(),
    host: z.string().min(1).optional(),
    port: z.number().int().min(1).max(65_535).optional(),
    user: z.string().min(1).optional(),
    password: z.string().optional(),
    database: z.string().min(1).optional(),
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier (a-z, 0-9, _)')
      .default('public'),
    max: z.number().int().min(1).max(1000).default(10),
    connectionTimeoutMs: z.number().int().min(1).max(600_000).default(5000),
    idleTimeoutMs: z.number().int().min(0).max(86_400_000).default(30_000),
    statementTimeoutMs: z.number().int().min(0).max(86_400_000).default(30_000),
    migrate: z.boolean().default(true),
    clock: clockSchema().optional(),
    logger: loggerSchema().optional(),
  })
  .strict();
