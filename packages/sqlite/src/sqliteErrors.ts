import { LoopGuardError, StorageError } from '@loopguard/core';

/**
 * The SQLite result code carried by a better-sqlite3 `SqliteError` (e.g. `SQLITE_BUSY`), if any.
 * @example
 * sqliteCodeOf(error) === 'SQLITE_CONSTRAINT_CHECK'
 */
export function sqliteCodeOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * Whether `error` is SQLite's "database is locked" (`SQLITE_BUSY` and its extended codes).
 * @example
 * if (isBusyError(error.cause)) console.warn('another process held the write lock too long');
 */
export function isBusyError(error: unknown): boolean {
  return sqliteCodeOf(error)?.startsWith('SQLITE_BUSY') === true;
}

/**
 * Converts an error raised while using the database at `path` into a {@link StorageError} naming the
 * path, the operation and the problem. {@link LoopGuardError}s pass through unchanged, so that an
 * error thrown inside a transaction keeps its code; errors that are not SQLite's pass through too
 * (a bug in a caller's transaction function is not a storage failure).
 *
 * - a closed connection, `SQLITE_NOTADB`, `SQLITE_CORRUPT`, `SQLITE_READONLY*`, `SQLITE_CANTOPEN*`, `SQLITE_PERM`,
 *   `SQLITE_AUTH`: code `storage_unavailable`;
 * - any other SQLite error (`SQLITE_BUSY` after retries, `SQLITE_FULL`, `SQLITE_IOERR*`,
 *   `SQLITE_CONSTRAINT*`, …): code `storage_error`.
 *
 * @param error - what was thrown.
 * @param path - the database file (`:memory:` for an in-memory database).
 * @param operation - what was being done, e.g. `SqliteAttemptStore.append`.
 * @example
 * try { stmt.run(); } catch (error) { throw toStorageError(error, db.name, 'insert attempt'); }
 */
export function toStorageError(error: unknown, path: string, operation: string): unknown {
  if (error instanceof LoopGuardError) return error;
  if (error instanceof TypeError && /database connection is not open/i.test(error.message)) {
    return new StorageError(
      'storage_unavailable',
      `${operation} on database ${JSON.stringify(path)} failed: the connection is closed`,
      { cause: error },
    );
  }
  const code = sqliteCodeOf(error);
  if (code === undefined) return error;
  const message = error instanceof Error ? error.message : String(error);
  const where = `${operation} on database ${JSON.stringify(path)}`;
  if (code === 'SQLITE_NOTADB') {
    return new StorageError(
      'storage_unavailable',
      `${where} failed: the file is not a SQLite database (${message})`,
      {
        cause: error,
      },
    );
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new StorageError(
      'storage_unavailable',
      `${where} failed: the database file is corrupt (${message})`,
      {
        cause: error,
      },
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StorageError(
      'storage_unavailable',
      `${where} failed: the database is read-only (file or directory not writable, or opened with readonly: true) (${message})`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return new StorageError(
      'storage_unavailable',
      `${where} failed: the file cannot be opened (${message})`,
      {
        cause: error,
      },
    );
  }
  if (code.startsWith('SQLITE_BUSY')) {
    return new StorageError(
      'storage_error',
      `${where} failed: the database stayed locked by another connection past the busy timeout and retries (${message})`,
      { cause: error },
    );
  }
  return new StorageError('storage_error', `${where} failed: ${message} (${code})`, { cause: error });
}
