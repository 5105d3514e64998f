import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type HookDatabase, openHookDatabase } from '../hook/hookDatabase.js';

interface Pooled {
  database: HookDatabase;
  /** The file as this connection last left it: inode, size and mtime. */
  file: string;
}

/**
 * The resident process's open databases, one connection per project, kept between events: closing
 * the last connection of a WAL database checkpoints it (writes and syncs the file), which would
 * cost every tool call a sync. Other processes' writes reach the connection through the WAL as
 * usual; a file that changed otherwise since the connection's last call (replaced, removed,
 * overwritten: its inode, size or mtime differ) is reopened, and a connection whose call failed is
 * closed, so the resident sees a corrupt or missing database as a hook process would.
 * @example
 * const pool = new HookDatabasePool();
 * await guardProject('claude', event, Date.now, pool.open);
 * pool.closeAll();
 */
export class HookDatabasePool {
  private readonly pooled = new Map<string, Pooled>();

  /** An {@link openHookDatabase} whose `close()` keeps the connection for the next event. */
  readonly open = (projectDir: string, lockTimeoutMs: number): HookDatabase => {
    const path = join(projectDir, '.loopguard', 'state.db');
    let entry = this.pooled.get(projectDir);
    if (entry !== undefined && entry.file !== fileState(path)) {
      entry.database.close();
      this.pooled.delete(projectDir);
      entry = undefined;
    }
    const database = entry?.database ?? openHookDatabase(projectDir, lockTimeoutMs);
    const kept: Pooled = { database, file: '' };
    this.pooled.set(projectDir, kept);
    return {
      sessions: database.sessions,
      record: (item) => database.record(item),
      close: (failed) => {
        if (!failed) {
          kept.file = fileState(path);
          return;
        }
        database.close();
        this.pooled.delete(projectDir);
      },
    };
  };

  /** Closes every connection. */
  closeAll(): void {
    for (const { database } of this.pooled.values()) database.close();
    this.pooled.clear();
  }
}

/** The file's identity and last change, or `''` when it is gone. */
function fileState(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return '';
  }
}
