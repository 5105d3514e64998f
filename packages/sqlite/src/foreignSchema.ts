import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from './migrations.js';

/** A schema object as `sqlite_master` holds it: its type, name, table and SQL. */
type SchemaObject = { type: string; name: string; tbl_name: string; sql: string };

/** loopguard's own schema objects (as `objectKey` makes them), from its migrations run once a process in memory. */
let own: Set<string> | undefined;

function objectsOf(db: Database.Database): SchemaObject[] {
  // SQLite's own (`sqlite_autoindex_…`, with no SQL; `sqlite_sequence`; `sqlite_stat1` of an `ANALYZE`) are not the schema's
  return db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
    )
    .all() as SchemaObject[];
}

function objectKey(object: SchemaObject): string {
  return JSON.stringify([object.type, object.name, object.tbl_name, object.sql]);
}

/** `db` brought to this build's schema (`migrate`), its objects' keys. */
function migratedObjects(db: Database.Database): Set<string> {
  migrate(db);
  return new Set(objectsOf(db).map(objectKey));
}

/**
 * How many schema objects the loopguard database at `path` would hold, once migrated to this
 * build's schema, that loopguard's migrations do not make: a trigger (it runs inside every write:
 * it could undo what the hooks record, trust48), a view (every door reads `agent_sessions`: one of
 * the file's could say each stopped session found no loop, trust49), a table, an index, or one of
 * loopguard's names with other SQL, each compared whole (type, name, table, SQL). The file's schema
 * (not its rows) is copied into memory, one `CREATE` statement at a time, and migrated there: an
 * older loopguard's database counts none (the migrations recreate its view in this build's words),
 * and one whose schema cannot be copied or migrated counts as foreign. 0 for a file newer than this
 * build (its open refuses it, and says why). Opens the file read-only and reads its schema only.
 * @throws SQLite's error when the file cannot be opened or is not a database.
 * @example foreignSchemaObjects('.loopguard/state.db'); // 0
 */
export function foreignSchemaObjects(path: string): number {
  if (own === undefined) {
    const fresh = new Database(':memory:');
    try {
      own = migratedObjects(fresh);
    } finally {
      fresh.close();
    }
  }
  const file = new Database(path, { readonly: true, fileMustExist: true });
  let version: number;
  let objects: SchemaObject[];
  try {
    version = file.pragma('user_version', { simple: true }) as number;
    objects = objectsOf(file);
  } finally {
    file.close();
  }
  if (version > SCHEMA_VERSION) return 0;
  const copy = new Database(':memory:');
  try {
    // one statement each (`prepare` refuses a second: `ATTACH`, `VACUUM INTO` could write files), and only `CREATE`s
    for (const object of objects) {
      if (!/^\s*CREATE\s/i.test(object.sql)) return objects.length;
      copy.prepare(object.sql).run();
    }
    // each landed in the copy's main schema as it stood in the file (a `CREATE TEMP …` would not)
    if (objectsOf(copy).length !== objects.length) return objects.length;
    copy.pragma(`user_version = ${version | 0}`);
    const expected = own;
    return [...migratedObjects(copy)].filter((key) => !expected.has(key)).length;
  } catch {
    return Math.max(1, objects.length);
  } finally {
    copy.close();
  }
}
