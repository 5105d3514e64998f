import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopGuardError } from '@loopguard/core';
import { type LoopGuardDatabase, openLoopGuardDatabase, SqliteRunStore } from '@loopguard/sqlite';
import { olderSchema } from '../state/olderSchema.js';
import { checkOwnStateFile, ownStateFolder, UnsafeStateError } from '../state/stateFolder.js';
import { checkFoundState, refuseForeignSchema } from '../state/stateSchema.js';
import { CliError } from '../terminal/CliError.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/** The state file of `loopguard run` in a working directory. */
export function stateFile(cwd: string): string {
  return join(cwd, '.loopguard', 'state.db');
}

/** An open `.loopguard/state.db`: the database and its run store. */
export interface RunState {
  /** The database (ports, connection, close). */
  db: LoopGuardDatabase;
  /** The runs, their breaker transitions and iterations. */
  runs: SqliteRunStore;
}

/** The SQLite result code in an error or its causes (`SQLITE_CORRUPT`, `SQLITE_FULL`, …), or the errno code. */
export function storageCodeOf(error: unknown): string | null {
  let errno: string | null = null;
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) errno ??= code;
    e = (e as { cause?: unknown }).cause;
  }
  return errno;
}

/** Whether SQLite itself says the file is corrupt or not a database: the only errors that move it aside. */
export function isCorruption(error: unknown): boolean {
  const code = storageCodeOf(error);
  return code !== null && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/**
 * Whether an error is the storage failing (disk full, I/O error, read-only, a lost file) rather than
 * a defect: a SQLite result code or a file-system errno anywhere in its causes.
 */
export function isStorageFault(error: unknown): boolean {
  const code = storageCodeOf(error);
  return (
    code !== null &&
    (code.startsWith('SQLITE_') || ['ENOSPC', 'EIO', 'EROFS', 'EDQUOT', 'EACCES', 'EPERM'].includes(code))
  );
}

/** The innermost message of an error with its code, on one line. */
export function storageCauseOf(error: unknown): string {
  return causeOf(error);
}

function causeOf(error: unknown): string {
  // the error that carries SQLite's or the file system's code says it best; else the outermost one
  let chosen: unknown = error;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_') || /^E[A-Z]+$/.test(code))) {
      chosen = e;
      break;
    }
  }
  const message = (chosen instanceof Error ? chosen.message : String(chosen)).split('\n')[0] ?? '';
  const code = storageCodeOf(error);
  return code === null || message.includes(code) ? message : `${message} (${code})`;
}

/**
 * The one-line error for a state file that cannot be read or written (disk full, I/O error,
 * read-only file system, permissions): it names the path and the cause; exit code 1.
 */
export function stateIoError(path: string, doing: string, error: unknown): CliError {
  return new CliError(`cannot ${doing} ${path}: ${causeOf(error)}`, EXIT_CODES.internalError, {
    cause: error,
  });
}

/**
 * Opens `.loopguard/state.db`. A `.loopguard` or `state.db` that is a symbolic link or another
 * user's is refused before anything is read or written (exit 1, one line); a new `.loopguard` is
 * made with its `.gitignore`.
 * - `read` (`runs`): read-only; the file is never created, migrated, moved or written, so it works
 *   on a read-only file system. `null` when there is no state file.
 * - `write` (`run`, `resume`, `reset`): creates it when missing. A file SQLite reports as corrupt
 *   (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is moved aside to `state.db.corrupt-<time>` and a new one is
 *   started, reported through `warn`. Any other failure (disk full, I/O error, read-only, permissions)
 *   touches nothing and is one line naming the path and the cause.
 * @throws CliError (exit 1) on an I/O error, or a corrupt file opened for reading.
 */
export function openState(
  cwd: string,
  warn: (message: string) => void,
  mode: 'read' | 'write',
  now: () => number = Date.now,
): RunState | null {
  const path = stateFile(cwd);
  try {
    if (
      ownStateFolder(cwd, mode === 'write', mode === 'write' ? checkFoundState : refuseForeignSchema) ===
      undefined
    )
      return null;
    checkOwnStateFile(path);
  } catch (error) {
    if (error instanceof UnsafeStateError)
      throw new CliError(error.message, EXIT_CODES.internalError, { cause: error });
    throw stateIoError(stateFile(cwd), mode === 'read' ? 'read' : 'open', error);
  }
  if (mode === 'read' && !existsSync(path)) return null;
  let corruption: string;
  try {
    return probe(path, mode);
  } catch (error) {
    corruption = causeOf(error);
    const older = mode === 'read' && error instanceof LoopGuardError ? olderSchema(error.message) : undefined;
    if (older !== undefined)
      throw new CliError(`${path}: ${older}`, EXIT_CODES.internalError, { cause: error });
    if (!isCorruption(error)) throw stateIoError(path, mode === 'read' ? 'read' : 'open', error);
    if (mode === 'read')
      throw new CliError(
        `state file ${path} is corrupt (${causeOf(error)}); the next loopguard run moves it aside and starts a new one`,
        EXIT_CODES.internalError,
      );
  }
  const aside = `${path}.corrupt-${now()}`;
  try {
    renameSync(path, aside);
    for (const suffix of ['-wal', '-shm'])
      if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  } catch (error) {
    throw stateIoError(path, 'move aside the corrupt', error);
  }
  warn(
    `state file ${path} is corrupt (${corruption}); moved it to ${aside} and started a new one: every breaker starts CLOSED`,
  );
  try {
    return probe(path, mode);
  } catch (error) {
    throw stateIoError(path, 'create', error);
  }
}

function probe(path: string, mode: 'read' | 'write'): RunState {
  let db: LoopGuardDatabase;
  try {
    db = openLoopGuardDatabase(path, mode === 'read' ? { readonly: true } : {});
  } catch (error) {
    const code = storageCodeOf(error) ?? '';
    if (mode === 'write' || !(code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_IOERR'))) throw error;
    db = openCopy(path);
  }
  try {
    db.db.prepare('SELECT count(*) FROM runs').get();
  } catch (error) {
    db.close();
    throw error;
  }
  return { db, runs: new SqliteRunStore({ db: db.db }) };
}

/**
 * A write-ahead-log database on a read-only file system cannot be opened in place (SQLite needs its
 * `-shm` file), so reading goes through a private copy of the file and its log; the original is not
 * touched.
 */
function openCopy(path: string): LoopGuardDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-read-'));
  try {
    const copy = join(dir, 'state.db');
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    const db = openLoopGuardDatabase(copy, { readonly: true });
    return {
      ...db,
      close() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
