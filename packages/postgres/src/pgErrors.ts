import { InvalidInputError, LoopGuardError, StorageError } from '@loopguard/core';

/** SQLSTATE classes and codes that mean the server or the connection is gone, not the statement. */
const UNAVAILABLE_CLASSES = ['08', '53', '57', '3D', '28'];
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
    if (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable|Connection ended/i.test(
    message,
  );
}

/**
 * Converts what node-postgres threw during `operation` into a {@link StorageError}: code
 * `storage_unavailable` when the server cannot be reached or the connection dropped (see
 * {@link isConnectionError}), an `InvalidInputError` for a value PostgreSQL cannot store (the NUL
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
