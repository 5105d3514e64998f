import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { type HookDatabase, openHookDatabase } from '../hook/hookDatabase.js';

interface Pooled {
  database: HookDatabase;
  /** The inode of the file the connection has open. */
  inode: number | undefined;
}

/**
 * The MCP server's open databases, one connection per project, kept between events: closing
 * the last connection of a WAL database checkpoints it (writes and syncs the file), which would
 * cost every tool call a sync. Other processes' writes reach the connection through the WAL as
 * usual. A file removed or replaced under the connection (another inode) is opened afresh; a file
 * overwritten in place with something that is not SQLite is opened afresh too, and the old
 * connection is left open, never closed: closing it would checkpoint its pages into that file,
 * repairing it behind the user's back. A connection whose call failed is dropped. So a corrupt or
 * missing database fails open as it does for a hook process, and so does a FIFO in its place (read
 * without waiting for a writer).
 * @example
 * const pool = new HookDatabasePool();
 * await guardProject('claude', event, Date.now, pool.open);
 * pool.closeAll();
 */
export class HookDatabasePool {
  private readonly pooled = new Map<string, Pooled>();
  /** Connections to files overwritten in place: kept referenced (a collected one would be closed). */
  private readonly abandoned: HookDatabase[] = [];

  /** An {@link openHookDatabase} whose `close()` keeps the connection for the next event. */
  readonly open = (projectDir: string, lockTimeoutMs: number): HookDatabase => {
    const path = join(projectDir, '.loopguard', 'state.db');
    const cached = this.pooled.get(projectDir);
    const file = fileOf(path);
    if (cached !== undefined && (cached.inode !== file.inode || !file.sqlite)) {
      this.pooled.delete(projectDir);
      if (cached.inode === file.inode) this.abandoned.push(cached.database);
      else cached.database.close();
    }
    const database = this.pooled.get(projectDir)?.database ?? openHookDatabase(projectDir, lockTimeoutMs);
    this.pooled.set(projectDir, { database, inode: fileOf(path).inode });
    return {
      sessions: database.sessions,
      record: (item) => database.record(item),
      spend: () => database.spend(),
      close: (failed) => {
        if (!failed) return;
        database.close();
        this.pooled.delete(projectDir);
      },
    };
  };

  /** Closes every connection (the abandoned ones stay as they are until the process exits). */
  closeAll(): void {
    for (const { database } of this.pooled.values()) database.close();
    this.pooled.clear();
  }
}

/** SQLite's file header. */
const HEADER = Buffer.from('SQLite format 3\u0000');

/** The file's inode, and whether it starts with SQLite's header (`inode` undefined: no file). */
function fileOf(path: string): { inode: number | undefined; sqlite: boolean } {
  let fd: number | undefined;
  try {
    // never waits: a FIFO planted as state.db would block the server, and every hook call with it
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const header = Buffer.alloc(HEADER.length);
    const read = readSync(fd, header, 0, HEADER.length, 0);
    return { inode: fstatSync(fd).ino, sqlite: read === HEADER.length && header.equals(HEADER) };
  } catch {
    return { inode: undefined, sqlite: false };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
