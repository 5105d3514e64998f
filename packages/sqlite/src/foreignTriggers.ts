import Database from 'better-sqlite3';
import { openLoopGuardDatabase } from './openLoopGuardDatabase.js';

/** loopguard's own triggers, `name` → its SQL, as its migrations make them; built once a process. */
let own: Map<string, string> | undefined;

function triggersOf(db: Database.Database): Array<{ name: string; sql: string }> {
  return db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as Array<{
    name: string;
    sql: string;
  }>;
}

function ownTriggers(): Map<string, string> {
  if (own === undefined) {
    const fresh = new Database(':memory:');
    try {
      openLoopGuardDatabase(fresh);
      own = new Map(triggersOf(fresh).map((t) => [t.name, t.sql]));
    } finally {
      fresh.close();
    }
  }
  return own;
}

/**
 * How many triggers of the loopguard database at `path` its migrations did not make (another name,
 * or another body under one of loopguard's names). A trigger runs inside every write: one that came
 * with a database loopguard did not make (an archive's, a copy's) could undo what the hooks record
 * or switch sessions off. An older schema's database holds some of loopguard's triggers, no other.
 * Opens the file read-only and reads its schema only.
 * @throws SQLite's error when the file cannot be opened or is not a database.
 * @example foreignTriggers('.loopguard/state.db'); // 0
 */
export function foreignTriggers(path: string): number {
  const expected = ownTriggers();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return triggersOf(db).filter((t) => expected.get(t.name) !== t.sql).length;
  } finally {
    db.close();
  }
}
