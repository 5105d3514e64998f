import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Who holds a repository's run lock: written next to it by the holder. */
export interface RunLockOwner {
  /** The live run. */
  runId: string;
  /** The loopguard process holding the lock. */
  pid: number;
  /** The token tagging its agents' environments (`LOOPGUARD_AGENT_TOKEN`). */
  agentToken: string;
  /** The current agent's process group, when an iteration is running. */
  agentPgid: number | null;
}

/** A held lock: release it when the run ends (the OS releases it when the process dies). */
export interface RunLock {
  /** Records who holds the lock (the live run, its agent's process group). */
  setOwner(owner: RunLockOwner): void;
  /** Releases the lock. Idempotent. */
  release(): void;
}

/** The lock file of the state directory (`.loopguard/run.lock`). */
export function runLockFile(stateDir: string): string {
  return join(stateDir, 'run.lock');
}

function ownerFile(stateDir: string): string {
  return join(stateDir, 'run.owner.json');
}

/** The last recorded owner of the lock (live or dead), or `null`. */
export function lastRunLockOwner(stateDir: string): RunLockOwner | null {
  try {
    return JSON.parse(readFileSync(ownerFile(stateDir), 'utf8')) as RunLockOwner;
  } catch {
    return null;
  }
}

/**
 * Takes the repository's run lock: an exclusive SQLite lock (an OS file lock on
 * `.loopguard/run.lock`), held by an open transaction for the process's life and released by the
 * OS when the process dies, however it dies.
 * @returns the lock, or `null` when another live process holds it.
 * @throws the file system's error when the lock file cannot be created or opened.
 * @example const lock = acquireRunLock('.loopguard'); if (lock === null) console.error(liveRunOwner('.loopguard'));
 */
export function acquireRunLock(stateDir: string): RunLock | null {
  const db = new Database(runLockFile(stateDir), { timeout: 1000 });
  try {
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return null;
    throw error;
  }
  let released = false;
  return {
    setOwner(owner) {
      const tmp = `${ownerFile(stateDir)}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, `${JSON.stringify(owner)}\n`);
        renameSync(tmp, ownerFile(stateDir));
      } catch (error) {
        // a failed write or rename leaves no `.<pid>.tmp` in the project's .loopguard (doors71)
        rmSync(tmp, { force: true });
        throw error;
      }
    },
    release() {
      if (released) return;
      released = true;
      db.close();
    },
  };
}

/**
 * The owner of the run lock when a live process holds it, else `null` (no lock, or its holder is
 * dead). Read-only: it never creates or writes a file, so it works on a read-only file system.
 */
export function liveRunOwner(stateDir: string): RunLockOwner | null {
  const file = runLockFile(stateDir);
  if (!existsSync(file)) return null;
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch {
    return null;
  }
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return null; // readable: nobody holds the exclusive lock
  } catch (error) {
    if (!(error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return null;
    return lastRunLockOwner(stateDir) ?? { runId: '(unknown)', pid: 0, agentToken: '', agentPgid: null };
  } finally {
    db.close();
  }
}
