import type BetterSqlite3 from 'better-sqlite3';

/** A connection's own `BEGIN IMMEDIATE` and `COMMIT`, prepared on its first transaction. */
interface Statements {
  begin: BetterSqlite3.Statement;
  commit: BetterSqlite3.Statement;
}

const prepared = new WeakMap<BetterSqlite3.Database, Statements>();

/**
 * Runs `work` in one `BEGIN IMMEDIATE` transaction on `db` (SQLite's write lock taken at the start,
 * so two writers of one row serialise instead of one failing at its commit): committed when `work`
 * returns, rolled back when it or the commit throws (the error is thrown on). What it does the same
 * as better-sqlite3's `db.transaction(work).immediate()()`, whose first use prepares nine statements
 * (BEGIN of each kind, COMMIT, ROLLBACK, the savepoints) and builds four wrapped functions: a hook
 * call is a new process that makes one transaction, and prepares two (docs/decisions.md, issue 37
 * §3, the command hook without a transaction wrapper). Inside a transaction already open on `db`,
 * `work` runs in a savepoint of it, as better-sqlite3 does.
 * @param db - the connection.
 * @param work - the transaction's reads and writes; must not return a promise.
 * @returns what `work` returns.
 * @throws whatever `work` or SQLite throws (nothing of the transaction is written then).
 * @example immediateTransaction(db, () => insert.run(row));
 */
export function immediateTransaction<T>(db: BetterSqlite3.Database, work: () => T): T {
  if (db.inTransaction) return db.transaction(work).immediate();
  let statements = prepared.get(db);
  if (statements === undefined) {
    statements = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT') };
    prepared.set(db, statements);
  }
  statements.begin.run();
  try {
    const result = work();
    if (typeof (result as { then?: unknown } | null)?.then === 'function')
      throw new TypeError('a transaction must not return a promise');
    statements.commit.run();
    return result;
  } catch (error) {
    // a failed COMMIT may leave the transaction open (SQLITE_BUSY): it is rolled back too
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
