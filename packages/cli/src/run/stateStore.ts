import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { type LoopGuardDatabase, openLoopGuardDatabase, SqliteRunStore } from '@loopguard/sqlite';

/** The state file of `loopguard run` in a working directory. */
export function stateFile(cwd: string): string {
  return join(cwd, '.loopguard', 'state.db');
}

/**
 * Opens `.loopguard/state.db`. A file that is not a usable database (corrupt) is moved aside to
 * `state.db.corrupt-<time>` and a new one is started, reported through `warn`: a broken state file
 * never blocks a run, and nothing is silently lost.
 */
export function openState(
  cwd: string,
  warn: (message: string) => void,
  create = true,
): { db: LoopGuardDatabase; runs: SqliteRunStore } | null {
  const path = stateFile(cwd);
  if (!create && !existsSync(path)) return null;
  mkdirSync(join(cwd, '.loopguard'), { recursive: true });
  let db: LoopGuardDatabase | undefined;
  try {
    db = openLoopGuardDatabase(path);
    db.db.prepare('SELECT count(*) FROM runs').get();
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code;
    if (code === 'schema_too_new') throw error;
    const aside = `${path}.corrupt-${Date.now()}`;
    renameSync(path, aside);
    for (const suffix of ['-wal', '-shm'])
      if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
    warn(
      `state file ${path} is corrupt (${(error as Error).message}); moved it to ${aside} and started a new one: every breaker starts CLOSED`,
    );
    db = openLoopGuardDatabase(path);
  }
  return { db, runs: new SqliteRunStore({ db: db.db }) };
}
