import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

/** A schema object as `sqlite_master` holds it: its type, name, table and SQL. */
type SchemaObject = { type: string; name: string; tbl_name: string; sql: string | null };

/**
 * loopguard's own schema objects after each migration, by the `user_version` it sets (the
 * objects as `objectKey` makes them); built once a process, in memory.
 */
let own: Map<number, Set<string>> | undefined;

function objectsOf(db: Database.Database): SchemaObject[] {
  // SQLite's own (`sqlite_autoindex_…`, `sqlite_sequence`, `sqlite_stat1` of an `ANALYZE`) are not the schema's
  return db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .all() as SchemaObject[];
}

function objectKey(object: SchemaObject): string {
  return JSON.stringify([object.type, object.name, object.tbl_name, object.sql]);
}

function ownObjects(): Map<number, Set<string>> {
  if (own === undefined) {
    const fresh = new Database(':memory:');
    try {
      const versions = new Map<number, Set<string>>([[0, new Set()]]);
      for (const migration of MIGRATIONS) {
        migration.up(fresh);
        versions.set(migration.version, new Set(objectsOf(fresh).map(objectKey)));
      }
      own = versions;
    } finally {
      fresh.close();
    }
  }
  return own;
}

/**
 * How many schema objects of the loopguard database at `path` its migrations did not make at the
 * file's schema version (`user_version`): a trigger (it runs inside every write: it could undo what
 * the hooks record, trust48), a view (every door reads `agent_sessions`: one of the file's could
 * say each stopped session found no loop, trust49), a table, an index, or one of loopguard's names
 * with other SQL. Each is compared whole (type, name, table, SQL) with the objects of the migrations
 * up to that version, so an older loopguard's database counts none. 0 for a file newer than this
 * build (its open refuses it, and says why). Opens the file read-only and reads its schema only.
 * @throws SQLite's error when the file cannot be opened or is not a database.
 * @example foreignSchemaObjects('.loopguard/state.db'); // 0
 */
export function foreignSchemaObjects(path: string): number {
  const versions = ownObjects();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    // a version between two migrations (a gap) is the one below's schema
    const known = [...versions.keys()].filter((v) => v <= version).at(-1) ?? 0;
    if (version > (MIGRATIONS.at(-1)?.version ?? 0)) return 0;
    const expected = versions.get(known) ?? new Set<string>();
    return objectsOf(db).filter((object) => !expected.has(objectKey(object))).length;
  } finally {
    db.close();
  }
}
