import type { AsyncStorage } from '@loopguard/core';
import { toAsyncStorage } from '@loopguard/core/internal';
import type { LoopGuardDatabase } from './openLoopGuardDatabase.js';
import { toStorageError } from './sqliteErrors.js';

/**
 * The asynchronous twin of a loopguard SQLite database: the same tables behind {@link AsyncStorage},
 * for code written against the asynchronous ports (`SharedLoopDetector`, the asynchronous contract
 * suite). Each transaction is one `BEGIN IMMEDIATE … COMMIT` on the database's connection that stays
 * open until the function's promise settles (`ROLLBACK` when it rejects); transactions of the twin
 * run one at a time, and other processes wait on SQLite's write lock. While one is open, do not use
 * the synchronous ports of the same connection from other code: their writes would join it.
 *
 * @example
 * const database = openLoopGuardDatabase('loopguard.db');
 * const detector = new SharedLoopDetector(asyncSqliteStorage(database), { maxAttempts: 3 });
 */
export function asyncSqliteStorage(database: LoopGuardDatabase): AsyncStorage {
  const { db } = database;
  return toAsyncStorage(database.storage, async (fn) => {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw toStorageError(error, db.name, 'asyncSqliteStorage: BEGIN IMMEDIATE');
    }
    try {
      const value = await fn();
      db.exec('COMMIT');
      return value;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw toStorageError(error, db.name, 'asyncSqliteStorage: transaction');
    }
  });
}
