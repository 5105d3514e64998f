import type pg from 'pg';
import { isConnectionError, toStorageError } from './pgErrors.js';

/**
 * Where the PostgreSQL adapters send their SQL: the pool (each call on any free connection,
 * autocommit) or one client inside a transaction. Errors come out as `StorageError`s.
 */
export interface PgExecutor {
  /** Runs one statement; `name` makes it a prepared statement on each connection. */
  query<R extends pg.QueryResultRow>(
    operation: string,
    text: string,
    values?: unknown[],
    name?: string,
  ): Promise<pg.QueryResult<R>>;
  /** Runs `fn` so that its statements commit together: a short transaction on the pool, or the enclosing one. */
  atomic<T>(operation: string, fn: (ex: PgExecutor) => Promise<T>): Promise<T>;
}

async function send<R extends pg.QueryResultRow>(
  client: pg.Pool | pg.ClientBase,
  operation: string,
  text: string,
  values: unknown[] | undefined,
  name: string | undefined,
): Promise<pg.QueryResult<R>> {
  try {
    const config: pg.QueryConfig = { text, values: values ?? [] };
    if (name !== undefined) config.name = name;
    return await client.query<R>(config);
  } catch (error) {
    throw toStorageError(error, operation);
  }
}

/** A connection checked out of the pool, listening for errors for its whole checkout. */
export interface Checkout {
  /** The connection. */
  client: pg.PoolClient;
  /**
   * Returns the connection to the pool, or destroys it when it failed (`failure` is a connection
   * error, or the connection emitted `'error'` while checked out), and stops listening.
   */
  release(failure?: unknown): void;
}

/**
 * Checks a connection out of `pool` with an `'error'` listener for the whole checkout: a server that
 * terminates the connection between two statements (restart, admin kill) makes node-postgres emit
 * `'error'` on the client, which would crash the process without a listener. The error is kept, the
 * next statement on the client fails with a typed `StorageError`, and release destroys the connection.
 * @throws StorageError (or ConfigurationError) when no connection can be had.
 */
export async function checkout(pool: pg.Pool, operation: string): Promise<Checkout> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toStorageError(error, operation);
  }
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on('error', onError);
  return {
    client,
    release(failure?: unknown) {
      client.off('error', onError);
      const cause = failure instanceof Error ? (failure.cause ?? failure) : failure;
      const broken =
        lost ?? (failure !== undefined && isConnectionError(cause) ? (cause as Error) : undefined);
      client.release(broken);
    },
  };
}

/**
 * Runs `fn` in a transaction on a connection of `pool`; rolls back when it rejects. A connection that
 * failed is destroyed rather than returned to the pool, so the next call gets a new one.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  operation: string,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const { client, release } = await checkout(pool, operation);
  let failure: unknown;
  try {
    await send(client, operation, 'BEGIN', undefined, undefined);
    const value = await fn(client);
    await send(client, operation, 'COMMIT', undefined, undefined);
    return value;
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    release(failure);
  }
}

/** The executor of one client that is inside a transaction. */
export function clientExecutor(client: pg.ClientBase): PgExecutor {
  const ex: PgExecutor = {
    query: (operation, text, values, name) => send(client, operation, text, values, name),
    atomic: (_operation, fn) => fn(ex),
  };
  return ex;
}

/** The executor of the pool: each statement autocommits; `atomic` opens a short transaction. */
export function poolExecutor(pool: pg.Pool): PgExecutor {
  return {
    query: (operation, text, values, name) => send(pool, operation, text, values, name),
    atomic: (operation, fn) => inTransaction(pool, operation, (client) => fn(clientExecutor(client))),
  };
}
