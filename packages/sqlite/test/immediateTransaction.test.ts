import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { immediateTransaction } from '../src/immediateTransaction.js';
import { tempDir } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A WAL database file with a table of notes, as the hook's `state.db` is opened; `open` makes another connection to it. */
function database() {
  const { dir, remove } = tempDir();
  const path = join(dir, 'state.db');
  const open = () => {
    const db = new Database(path, { timeout: 0 });
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    cleanups.unshift(() => db.close());
    return db;
  };
  cleanups.push(remove);
  const db = open();
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
  const add = (on: Database.Database, text: string) =>
    on.prepare('INSERT INTO notes (text) VALUES (?)').run(text);
  const notes = (on: Database.Database = open()) =>
    (on.prepare('SELECT text FROM notes ORDER BY id').all() as Array<{ text: string }>).map(
      (row) => row.text,
    );
  return { db, open, add, notes };
}

describe('immediateTransaction', () => {
  it('commits what the work wrote and returns its result', () => {
    const { db, add, notes } = database();
    expect(immediateTransaction(db, () => add(db, 'first').changes)).toBe(1);
    expect(db.inTransaction).toBe(false);
    expect(notes()).toEqual(['first']);
  });

  it('rolls back a failed transaction and loses nothing committed before it', () => {
    const { db, open, add, notes } = database();
    immediateTransaction(db, () => add(db, 'acknowledged'));
    expect(() =>
      immediateTransaction(db, () => {
        add(db, 'half-done');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.inTransaction).toBe(false);
    // a statement SQLite refuses fails the transaction too
    expect(() =>
      immediateTransaction(db, () => {
        add(db, 'second half-done');
        add(db, 'acknowledged');
      }),
    ).toThrow(/UNIQUE/);
    expect(db.inTransaction).toBe(false);
    expect(notes(db)).toEqual(['acknowledged']);
    // the next transaction on the same connection works, and another connection reads the same
    immediateTransaction(db, () => add(db, 'after'));
    db.close();
    expect(notes(open())).toEqual(['acknowledged', 'after']);
  });

  it('rolls back a transaction whose commit fails', () => {
    const { db, add, notes } = database();
    db.exec('CREATE TABLE links (note INTEGER NOT NULL REFERENCES notes (id) DEFERRABLE INITIALLY DEFERRED)');
    immediateTransaction(db, () => add(db, 'acknowledged'));
    // a deferred foreign key is checked at COMMIT, which then fails with the transaction still open
    expect(() =>
      immediateTransaction(db, () => {
        add(db, 'half-done');
        db.prepare('INSERT INTO links (note) VALUES (999)').run();
      }),
    ).toThrow(/FOREIGN KEY/);
    expect(db.inTransaction).toBe(false);
    expect(notes()).toEqual(['acknowledged']);
    expect(db.prepare('SELECT count(*) AS n FROM links').get()).toEqual({ n: 0 });
  });

  it('holds the write lock from its start: another writer waits for it', () => {
    const { db, open, add, notes } = database();
    const other = open();
    immediateTransaction(db, () => {
      // nothing written yet: a deferred transaction would not have locked anything here
      expect(() => other.prepare('BEGIN IMMEDIATE').run()).toThrow(/locked|busy/i);
      add(db, 'mine');
    });
    immediateTransaction(other, () => add(other, 'theirs'));
    expect(notes()).toEqual(['mine', 'theirs']);
  });

  it('runs in a savepoint inside an open transaction: a failure undoes only its own writes', () => {
    const { db, add, notes } = database();
    immediateTransaction(db, () => {
      add(db, 'outer');
      expect(() =>
        immediateTransaction(db, () => {
          add(db, 'inner');
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(db.inTransaction).toBe(true);
    });
    expect(notes()).toEqual(['outer']);
  });

  it('refuses work that returns a promise, and rolls it back', () => {
    const { db, add, notes } = database();
    expect(() =>
      immediateTransaction(db, () => {
        add(db, 'half-done');
        return Promise.resolve();
      }),
    ).toThrow(TypeError);
    expect(db.inTransaction).toBe(false);
    expect(notes()).toEqual([]);
  });
});
