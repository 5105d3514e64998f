import { ConfigurationError, InvalidInputError, LoopGuardError, StorageError } from '@loopguard/core';

/**
 * SQLSTATE classes that mean the server or the connection is gone, not the statement: connection
 * exceptions, insufficient resources (too many connections), operator intervention (shutdown).
 */
const UNAVAILABLE_CLASSES = ['08', '53', '57'];
/** `query_canceled` (class 57): the statement ran past `statement_timeout`; the connection is fine. */
const STATEMENT_TIMEOUT = '57014';
/**
 * SQLSTATE classes of a configuration the server refuses: `28` invalid authorization (failed
 * authentication, unknown role), `3D` invalid catalog name (unknown database). Retrying cannot help.
 */
const CONFIGURATION_CLASSES = ['28', '3D'];
/** Node socket errors of a server that is down or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/** The SQLSTATE or Node error code carried by a node-postgres error, if any. */
function codeOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `error` means the connection to the server failed or was lost (server down or restarting,
 * network, too many connections), so a later call on a new connection may succeed.
 * @example
 * if (isConnectionError(error)) console.warn('PostgreSQL unreachable; the pool reconnects on the next call');
 */
export function isConnectionError(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code)) return true;
    if (code === STATEMENT_TIMEOUT) return false;
    if (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable|Connection ended|terminating connection/i.test(
    message,
  );
}

/** Whether `error` is node-postgres's pool giving up waiting for a free connection. */
function isPoolExhausted(error: unknown): boolean {
  return error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
}

/**
 * Converts what node-postgres threw during `operation` into a {@link StorageError}: code
 * `storage_unavailable` when the server cannot be reached, the connection dropped (see
 * {@link isConnectionError}) or the pool had no free connection within `connectionTimeoutMs`; a
 * `ConfigurationError` when the server refuses the user, password or database;
 * `storage_error` when a statement ran past `statement_timeout`; an `InvalidInputError` for a value PostgreSQL cannot store (the NUL
 * character in text or JSON; the statement wrote nothing), `storage_error` for any other database error (constraint, deadlock,
 * serialization failure …). {@link LoopGuardError}s and errors that are not the database's (a bug
 * in a caller's transaction function) pass through unchanged.
 * @example
 * try { await pool.query(sql) } catch (error) { throw toStorageError(error, 'PgAttemptStore.append') }
 */
export function toStorageError(error: unknown, operation: string): unknown {
  if (error instanceof LoopGuardError) return error;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code !== undefined && code.length === 5 && CONFIGURATION_CLASSES.includes(code.slice(0, 2))) {
    return new ConfigurationError(
      `${operation} failed: PostgreSQL refused the connection settings (${message}, ${code}); check the user, password and database name`,
      { cause: error },
    );
  }
  if (isPoolExhausted(error)) {
    return new StorageError(
      'storage_unavailable',
      `${operation} failed: no free connection in the pool within connectionTimeoutMs (${message}); every connection is busy — raise "max" or wait`,
      { cause: error },
    );
  }
  if (isConnectionError(error)) {
    return new StorageError(
      'storage_unavailable',
      `${operation} failed: PostgreSQL is unreachable or the connection dropped (${message}${code ? `, ${code}` : ''}); the next call reconnects`,
      { cause: error },
    );
  }
  const isDatabaseError = error instanceof Error && (error as { severity?: unknown }).severity !== undefined;
  if (!isDatabaseError) return error;
  if (code === '22021' || code === '22P05') {
    return new InvalidInputError(
      `${operation}: PostgreSQL cannot store this value (text and JSON may not contain the NUL character \\u0000): ${message}`,
      { cause: error },
    );
  }
  return new StorageError('storage_error', `${operation} failed: ${message} (${code ?? 'no SQLSTATE'})`, {
    cause: error,
  });
}
