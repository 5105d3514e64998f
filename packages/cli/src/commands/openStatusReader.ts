import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigurationError, InvalidInputError, LoopGuardError, StorageError } from '@loopguard/core';
import type { StatusReader } from '@loopguard/core/internal';
import { openPostgresStorage, PG_SCHEMA_VERSION, PgStatusReader, VERSION_TABLE } from '@loopguard/postgres';
import { SqliteStatusReader } from '@loopguard/sqlite';
import { findConfigFile, parseConfigText, readConfigFile } from '../files/configFiles.js';
import { gitTracks } from '../files/gitTracks.js';
import { switchedOffProject, switchedOffWords } from '../hook/switchedOffProject.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { findStateDatabase, searchStateDatabase } from './findStateDatabase.js';
import { openDatabaseFile } from './openDatabaseFile.js';
import { projectHooksConfigured, projectHooksOff, projectPricesBelowLibrary } from './projectHooksOff.js';

/**
 * Where an inspecting command reads: a SQLite file or a PostgreSQL database.
 * @example { postgres: 'postgres://loopguard@db:5432/agents', schema: 'loopguard' }
 */
/** The help of `--db` for the commands that read a store (`status`, `serve`, `recoveries`): where they look without it. */
export const DB_FLAG_HELP =
  'the loopguard SQLite file (default: .loopguard/state.db here or above, else ~/.loopguard/state.db)';

/** The flags of the commands that read a store (`status`, `serve`, `recoveries`): which store. */
export interface StatusStoreFlags {
  /** `--db`: the loopguard SQLite file. */
  db?: string;
  /** `--postgres`: a PostgreSQL connection string. */
  postgres?: string;
  /** `--schema`: the PostgreSQL schema of loopguard's tables. @default 'public' */
  schema?: string;
  /** `--config`: the configuration file whose `serve:` section may name the store. */
  config?: string;
}

/** An open store to read, and how to close it. */
export interface OpenStatusReader {
  /** The reader of the store found. */
  reader: StatusReader;
  /** `--db <file>` or `--postgres <url without password>`, for messages. */
  label: string;
  /**
   * What was read, for the user: the database file's path, or the connection string without password
   * and the schema when one was named (`postgres://u:***@db/agents, schema team`).
   */
  source: string;
  /**
   * Why the hooks are switched off, read now, for a project's SQLite database
   * ({@link projectHooksOff}); always `undefined` for PostgreSQL (a fleet's store is no project's).
   */
  hooksOff(): string | undefined;
  /**
   * What the project's configuration changes in the guard, read now, for a project's SQLite
   * database ({@link projectHooksConfigured}); always `undefined` for PostgreSQL.
   */
  hooksConfigured(): string | undefined;
  /**
   * The models the project's configuration prices below the pricing library, read now, for a
   * project's SQLite database ({@link projectPricesBelowLibrary}); always `undefined` for PostgreSQL.
   */
  pricesBelowLibrary(): string | undefined;
  /**
   * The project's own SQLite database when the store read is another one named by `serve.postgres`
   * of the configuration file: the hooks write the project's sessions there, never to PostgreSQL.
   * @default undefined (the store read is the project's, or a flag named it)
   */
  projectDatabase?: string;
  /** Closes the store (and the reader's connections). */
  close(): Promise<void>;
}

/** A connection parameter that holds a password (`password`, `sslpassword`). */
const PASSWORD_KEY = /password/i;

/**
 * Whether a connection string holds a password: its user part's, or a parameter named for one (in
 * the URL's query, or the `key=value` form's).
 */
function holdsPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || [...parsed.searchParams.keys()].some((key) => PASSWORD_KEY.test(key));
  } catch {
    return /password\s*=/i.test(url);
  }
}

/** What `--postgres` with a password says: the command line is no place for it. */
export const ARGV_PASSWORD_WARNING =
  'loopguard: warning: --postgres holds a password, and every local user can read it in the process list (ps); give it in PGPASSWORD, or in serve.postgres of a configuration file only you can read\n';

/**
 * The connection string with its passwords hidden, for messages: the user part's, and any query
 * parameter named for one (`?password=`, `?sslpassword=`: node-postgres and libpq read them there).
 */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    for (const key of new Set(parsed.searchParams.keys()))
      if (PASSWORD_KEY.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString();
  } catch {
    return '(connection string)';
  }
}

/**
 * The `serve:` section of the configuration file (`--config` or the first of `CONFIG_FILES` in `cwd`).
 * The project's own file that cannot be read has none: the hooks fail open on it, and the project's
 * database is read, whose doors say so ({@link projectHooksOff}); a file the user named is refused.
 */
function serveSection(
  io: CliIo,
  path: string | undefined,
): { values: Record<string, unknown>; path: string } | undefined {
  const found = path !== undefined ? resolve(io.cwd, path) : findConfigFile(io.cwd);
  if (found === undefined) return undefined;
  let parsed: unknown;
  try {
    // one rule with the hooks': a FIFO is refused, not waited on; an error quotes no text
    parsed = parseConfigText(found, readConfigFile(found).toString('utf8'));
  } catch (error) {
    if (path === undefined) return undefined;
    throw new CliError(`config ${found}: cannot be read: ${(error as Error).message.split('\n')[0]}`);
  }
  const serve = (parsed as { serve?: unknown } | null)?.serve;
  if (serve === undefined || serve === null) return undefined;
  if (typeof serve !== 'object' || Array.isArray(serve))
    throw new CliError(`config ${found}: serve must be an object (postgres, schema)`);
  return { values: serve as Record<string, unknown>, path: found };
}

function configString(
  section: { values: Record<string, unknown>; path: string },
  key: string,
): string | undefined {
  const value = section.values[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new CliError(`serve.${key} (in ${section.path}) must be a non-empty string`);
  return value;
}

/**
 * Where a PostgreSQL store was named, for its errors: the flags, or `serve:` of a configuration
 * file (a user who gave no flag reads the file's key, not `--postgres`).
 */
interface PgOrigin {
  /** How the connection string is named: `--postgres <url>` or `serve.postgres <url> (in <file>)`. */
  named: string;
  /** The key to check for the schema: `--schema` or `serve.schema`. */
  schemaKey: string;
  /** Said after an error: where the project's own sessions are, when there are any. @default '' */
  beside: string;
}

async function openPostgres(
  url: string,
  schema: string | undefined,
  origin: PgOrigin = { named: `--postgres ${redacted(url)}`, schemaKey: '--schema', beside: '' },
): Promise<OpenStatusReader> {
  const label = `--postgres ${redacted(url)}`;
  const named = origin.named;
  let storage: Awaited<ReturnType<typeof openPostgresStorage>>;
  try {
    storage = await openPostgresStorage({
      connectionString: url,
      migrate: false,
      max: 4,
      ...(schema === undefined ? {} : { schema }),
    });
  } catch (error) {
    if (error instanceof ConfigurationError && error.message.includes('"schema"'))
      throw new CliError(`${origin.schemaKey} ${schema}: ${error.message}`, undefined, { cause: error });
    if (error instanceof LoopGuardError)
      throw new CliError(`${named}: ${storageMessage(error)}${origin.beside}`, undefined, { cause: error });
    // node-postgres's own parse of the URL (its message names nothing; the input may hold a password)
    if ((error as NodeJS.ErrnoException).code === 'ERR_INVALID_URL')
      throw new CliError(
        `${named}: not a connection string (a /, @, # or ? in the user or password is written %2F, %40, %23, %3F)`,
        undefined,
        { cause: error },
      );
    throw error;
  }
  const reader = new PgStatusReader(storage);
  try {
    await reader.feedPosition(); // fails now, with one line, when the schema holds no loopguard tables
  } catch (error) {
    await storage.close();
    if (error instanceof LoopGuardError) {
      const missing = /does not exist/.test(error.message)
        ? ` (no loopguard tables in this schema: check ${origin.schemaKey})`
        : '';
      throw new CliError(`${named}: ${storageMessage(error)}${missing}${origin.beside}`, undefined, {
        cause: error,
      });
    }
    throw error;
  }
  const version = await pgSchemaVersion(storage);
  if (version !== undefined && version < PG_SCHEMA_VERSION) {
    await storage.close();
    throw new CliError(`${named}: ${earlierPgSchemaText(version)}${origin.beside}`);
  }
  return {
    reader,
    label,
    // two schemas of one database are two stores
    source: schema === undefined ? redacted(url) : `${redacted(url)}, schema ${schema}`,
    hooksOff: () => undefined,
    hooksConfigured: () => undefined,
    pricesBelowLibrary: () => undefined,
    close: () => storage.close(),
  };
}

/** The schema version a PostgreSQL store's migrations reached; `undefined` where it cannot be read. */
async function pgSchemaVersion(storage: { pool: { query: PgQuery } }): Promise<number | undefined> {
  try {
    const { rows } = await storage.pool.query(`SELECT max(version) AS version FROM ${VERSION_TABLE}`);
    const version = rows[0]?.version;
    return typeof version === 'number' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The pool's `query`, as {@link pgSchemaVersion} calls it. */
type PgQuery = (text: string) => Promise<{ rows: { version?: unknown }[] }>;

/**
 * A PostgreSQL store its workers have not migrated since an upgrade (pg68), in the user's words: the
 * read-only doors migrate nothing (a dashboard's role may only read), a worker opening it does.
 * @example earlierPgSchemaText(6); // 'written by an earlier loopguard (PostgreSQL schema version 6; this one reads 7): …'
 */
function earlierPgSchemaText(found: number): string {
  return `written by an earlier loopguard (PostgreSQL schema version ${found}; this one reads ${PG_SCHEMA_VERSION}): the next worker that opens it (openPostgresStorage, which migrates unless migrate: false) brings it up to date`;
}

/**
 * What a command that reads PostgreSQL once says of the store's error. A server it cannot reach is
 * said with what to check: the library's own advice (the pool reconnects at the next call, or has
 * no free connection) is for a process that keeps its storage open, not for one command.
 */
function storageMessage(error: LoopGuardError): string {
  if (!(error instanceof StorageError) || error.code !== 'storage_unavailable') return error.message;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `cannot connect to PostgreSQL${cause}: check that the server is running and that the host and port are right`;
}

/**
 * Opens the store an inspecting command reads (`serve`, `status`, `recoveries`): `--db <file>`
 * (read-only), else `--postgres <url>`, else `serve.postgres` of the configuration file, else the
 * project's database ({@link findStateDatabase}).
 * @throws CliError (exit code 2) with one line naming the flag when the store cannot be read.
 * @example const { reader, close } = await openStatusReader({ postgres: url }, io);
 */
export async function openStatusReader(flags: StatusStoreFlags, io: CliIo): Promise<OpenStatusReader> {
  if (flags.db !== undefined && flags.postgres !== undefined)
    throw new CliError('--db and --postgres cannot be used together');
  if (flags.db !== undefined) return openSqlite(flags.db, io);
  if (flags.postgres !== undefined) {
    if (holdsPassword(flags.postgres)) io.stderr(ARGV_PASSWORD_WARNING);
    return openPostgres(flags.postgres, flags.schema);
  }
  const section = serveSection(io, flags.config);
  const url = section && configString(section, 'postgres');
  if (section !== undefined && url !== undefined) {
    // a repository's file chooses the server, and node-postgres sends it the user's PGPASSWORD
    // (trust52): a found file git tracks names a store only when the user names it too
    // and says where the project's own sessions are, as a read of that store does (review59)
    const projectDatabase = projectDatabaseBeside(io);
    const sessionsHere =
      projectDatabase && `this project's hook sessions: loopguard status --db ${projectDatabase}`;
    if (flags.config === undefined && gitTracks(basename(section.path), dirname(section.path)))
      throw new CliError(
        `serve.postgres in ${section.path}, which git tracks (it came with the repository): loopguard connects to a store a repository names only when you name it (--postgres <url>, or serve's --config <file>)${sessionsHere === undefined ? '' : `; ${sessionsHere}`}`,
      );
    const store = await openPostgres(url, flags.schema ?? configString(section, 'schema'), {
      named: `serve.postgres ${redacted(url)} (in ${section.path})`,
      schemaKey: flags.schema === undefined ? 'serve.schema' : '--schema',
      beside: sessionsHere === undefined ? '' : ` (${sessionsHere})`,
    });
    return projectDatabase === undefined ? store : { ...store, projectDatabase };
  }
  const { database: found, project } = searchStateDatabase(io);
  const off = found === undefined ? switchedOffProject(io.cwd) : undefined;
  if (off !== undefined)
    // the hooks write nothing there: "no session guarded here yet" would promise a database (sessions53)
    throw new CliError(`${switchedOffWords(off)}, and recorded none`);
  if (found === undefined) {
    // the demo keeps its own database, apart from the one the hooks and `run` write
    const demo = existsSync(join(io.cwd, '.loopguard', 'demo.db'))
      ? '; the demo wrote --db .loopguard/demo.db'
      : '';
    const where =
      project === undefined
        ? `${io.cwd} or above, nor in ~/.loopguard: no session guarded here yet`
        : `${project}: no session guarded in this project yet`;
    throw new CliError(
      `no loopguard database in ${where} (the hooks loopguard init installs write .loopguard/state.db at a session's first tool call); to read another store, give --db <file> or --postgres <url> (or serve.postgres in the config file)${demo}`,
    );
  }
  return openSqlite(found, io, false);
}

/** The project's database a config's `serve.postgres` passes over, if any; a refused one is none. */
function projectDatabaseBeside(io: CliIo): string | undefined {
  try {
    return findStateDatabase(io);
  } catch (error) {
    if (error instanceof CliError) return undefined; // `--db` on it says why
    throw error;
  }
}

/** `given`: the user named `path` with `--db` (else it was found, and its errors name no flag). */
function openSqlite(path: string, io: CliIo, given = true): OpenStatusReader {
  const database = openDatabaseFile(path, io, given);
  const source = resolve(io.cwd, path);
  return {
    reader: new SqliteStatusReader(database),
    label: `--db ${path}`,
    source,
    hooksOff: () => projectHooksOff(source, io.cwd),
    hooksConfigured: () => projectHooksConfigured(source),
    pricesBelowLibrary: () => projectPricesBelowLibrary(source),
    close: async () => database.close(),
  };
}

/**
 * Runs a read, turning a rejected argument (a cursor this store did not make) into a one-line
 * {@link CliError} naming the flag: the readers' messages start with the parameter's name.
 * @example const page = await readingFlags(() => reader.recoveryPage(query));
 */
export async function readingFlags<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidInputError)
      throw new CliError(`--${error.message}`, undefined, { cause: error });
    throw error;
  }
}
