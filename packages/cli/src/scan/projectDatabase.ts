import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { heldSessionProject } from '../hook/heldSessionProject.js';
import { ownStateDatabase } from '../state/stateFolder.js';

/**
 * What `read` finds in `project`'s `.loopguard/state.db`, opened read-only and checked as every
 * reader checks it (`ownStateDatabase`: a link, another user's, a FIFO, tracked by git are refused);
 * `undefined` where there is none, it is refused, or reading it fails: `scan` then goes by the
 * transcript alone.
 */
export function readProjectDatabase<T>(
  project: string,
  read: (db: BetterSqlite3.Database) => T,
): T | undefined {
  try {
    // Not `readableStateDatabase` (`status`'s): its schema check would load the migrations' SQL into
    // every scan thread, and `scan` reads only the rows of the sessions its transcripts name, whose
    // ids a database that came with the project cannot hold (trust51).
    const path = ownStateDatabase(project);
    if (path === undefined) return undefined;
    // loaded here only: most scans read no record, and the scan's bundles leave the addon out
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * The project whose database records session `sessionId` of `agent`, started in `startedIn`, found
 * as the hooks find it ({@link heldSessionProject}: the repository's project above a subfolder, or
 * one above that already holds the session).
 */
export function recordingProject(agent: string, sessionId: string, startedIn: string): string {
  return heldSessionProject(
    startedIn,
    (project) => readProjectDatabase(project, (db) => holdsSession(db, agent, sessionId)) === true,
  );
}

/** Whether the hooks' rows in `db` hold session `sessionId` of `agent`. */
export function holdsSession(db: BetterSqlite3.Database, agent: string, sessionId: string): boolean {
  return (
    db
      .prepare('SELECT 1 FROM hook_sessions WHERE agent = ? AND session_id = ? LIMIT 1')
      .get(agent, sessionId) !== undefined
  );
}
