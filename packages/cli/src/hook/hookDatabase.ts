import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContextEntryInput } from '@loopguard/core';
import {
  type AgentProcess,
  type BusyRetryPolicy,
  hookAgentProcess,
  openLoopGuardDatabase,
  SCHEMA_VERSION,
  SqliteHookSessionStore,
  SqliteSpendStore,
  SqliteStateMachine,
} from '@loopguard/sqlite';
import Database from 'better-sqlite3';
import { checkOwnStateFile, ownStateFolder } from '../state/stateFolder.js';
import { checkFoundState } from '../state/stateSchema.js';
import { wellFormed } from './hookEvent.js';

/** A project's `.loopguard/state.db`, opened for one hook call. */
export interface HookDatabase {
  /** The sessions' rows. */
  readonly sessions: SqliteHookSessionStore;
  /** Writes a nudge or stop entry on the same connection (inside the session's transaction). */
  record(entry: ContextEntryInput): void;
  /** The spend guard's ledgers (its statements are prepared on first use: most projects set no budget). */
  spend(): SqliteSpendStore;
  /**
   * Done with the connection: closes it.
   * @param failed - the call failed on it (a pooled connection is then dropped, not kept).
   */
  close(failed?: boolean): void;
}

/** A hook call never retries a busy database: it waits `busy_timeout`, then fails open. */
const NO_RETRY: BusyRetryPolicy = { retries: 0, initialDelayMs: 0 };

let agentProcess: AgentProcess | null | undefined;

/**
 * The agent CLI's process this process serves (read once: a hook call's, or the MCP server's,
 * parent), read at a session's first write only: a call answered from the session's memory (most
 * calls before a tool runs) writes nothing and reads nothing of `/proc` (hook37o).
 */
function theAgentProcess(): AgentProcess | null {
  if (agentProcess === undefined) agentProcess = hookAgentProcess();
  return agentProcess;
}

/** How much of `state.db` a hook call reads through a memory mapping (`mmap_size`); past it, by `read`. */
const HOOK_MMAP_BYTES = 64 * 1024 * 1024;

/**
 * Opens the project's `.loopguard/state.db` for a hook call. A database already at the current
 * schema (every call after a session's first) is opened with better-sqlite3 and two pragmas, and
 * nothing else: a hook call is a new process, and this is the path it takes on every tool call. A
 * new, older or foreign file goes through `openLoopGuardDatabase`, which creates, migrates or
 * refuses it with a clear error.
 *
 * `.loopguard` is created without `recursive` (the project directory itself must exist: a
 * recursive `mkdir` under `/proc` never returns), with its `.gitignore`; a `.loopguard` or a
 * `state.db` that is a symbolic link or another user's is refused (see {@link ownStateFolder}).
 * @param lockTimeoutMs - `busy_timeout`: how long a write waits for another call's lock.
 * @throws UnsafeStateError, StorageError or SQLite's error: the caller fails open.
 */
export function openHookDatabase(projectDir: string, lockTimeoutMs: number): HookDatabase {
  const path = join(ownStateFolder(projectDir, true, checkFoundState) as string, 'state.db');
  checkOwnStateFile(path);
  const db = existsSync(path) ? openCurrent(path, lockTimeoutMs) : undefined;
  if (db !== undefined) {
    let stateMachine: SqliteStateMachine | undefined;
    let spend: SqliteSpendStore | undefined;
    return {
      sessions: new SqliteHookSessionStore({ db, busyRetry: NO_RETRY, agentProcess: theAgentProcess }),
      record(entry) {
        stateMachine ??= new SqliteStateMachine({ db, busyRetry: NO_RETRY });
        stateMachine.addContextEntry(storable(entry));
      },
      spend: () => {
        spend ??= new SqliteSpendStore({ db, busyRetry: NO_RETRY });
        return spend;
      },
      close: () => db.close(),
    };
  }
  const database = openLoopGuardDatabase(path, { busyTimeoutMs: lockTimeoutMs, busyRetry: NO_RETRY });
  let spend: SqliteSpendStore | undefined;
  return {
    sessions: new SqliteHookSessionStore({
      db: database.db,
      busyRetry: NO_RETRY,
      agentProcess: theAgentProcess,
    }),
    record: (entry) => database.stateMachine.addContextEntry(storable(entry)),
    spend: () => {
      spend ??= new SqliteSpendStore({ db: database.db, busyRetry: NO_RETRY });
      return spend;
    },
    close: () => database.close(),
  };
}

/**
 * The entry as SQLite can store it as UTF-8: its text quotes the event (a tool's output, a command),
 * which may hold a lone surrogate (its metadata is stored as JSON, which escapes one).
 */
function storable(entry: ContextEntryInput): ContextEntryInput {
  return { ...entry, content: wellFormed(entry.content) };
}

/** The connection when the file is a loopguard database at the current schema in WAL mode, else `undefined`. */
function openCurrent(path: string, lockTimeoutMs: number): Database.Database | undefined {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, timeout: lockTimeoutMs });
  } catch {
    return undefined; // a directory, an unreadable file: openLoopGuardDatabase reports it with the path
  }
  try {
    const current =
      db.pragma('user_version', { simple: true }) === SCHEMA_VERSION &&
      db.pragma('journal_mode', { simple: true }) === 'wal';
    if (current) {
      // The settings openLoopGuardDatabase gives every connection that a hook's writes rely on.
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
      // Pages read through a mapping of the file: no read call and no copy into SQLite's page cache
      // for the session's row (a long session's is ≈ 55 overflow pages), which a new process would
      // allocate and fault in on every call (docs/decisions.md, issue 37 §3, seventh round).
      db.pragma(`mmap_size = ${HOOK_MMAP_BYTES}`);
      return db;
    }
  } catch {
    // Not a database, or locked: openLoopGuardDatabase reports it with the path.
  }
  db.close();
  return undefined;
}
