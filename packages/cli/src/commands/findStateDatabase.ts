import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loopguardHome } from '../files/agentHome.js';
import { findConfigFile } from '../files/configFiles.js';
import { UnsafeStateError } from '../state/stateFolder.js';
import { readableStateDatabase } from '../state/stateSchema.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/** Where {@link searchStateDatabase} ended: the database found, or the project that has none yet. */
export interface StateDatabaseSearch {
  /** The database found; `undefined` when none. */
  database?: string;
  /** The project of its own the search stopped at (a repository, or a folder with a loopguard config file) when it holds no database. */
  project?: string;
}

/**
 * The loopguard database an inspecting command reads when no store is given: the nearest
 * `.loopguard/state.db` from the working directory up to the root (what the hooks and `loopguard
 * run` write in the project), else `~/.loopguard/state.db` (what the hooks write for sessions
 * started in the home folder, as an `init --user` install sees them); `undefined` when neither exists.
 * @throws CliError (exit 1) when the nearest one is a symbolic link or another user's
 * @example findStateDatabase({ cwd: '/repo/src', env: { HOME: '/home/me' } }); // '/repo/.loopguard/state.db'
 */
export function findStateDatabase(io: Pick<CliIo, 'cwd' | 'env'>): string | undefined {
  return searchStateDatabase(io).database;
}

/**
 * {@link findStateDatabase}, saying where it stopped: the search never passes a project of its own
 * (a git repository, or a folder with a loopguard config file, other than the home folder) that
 * holds no database (sessions60): the hooks record a session started there in that project
 * (`sessionProjectDir`), so the parent's database holds none of its sessions, and reading it would
 * show another project's sessions under this one's settings.
 * @throws CliError (exit 1) when the nearest one is a symbolic link or another user's
 */
export function searchStateDatabase(io: Pick<CliIo, 'cwd' | 'env'>): StateDatabaseSearch {
  const home = loopguardHome(io.env);
  try {
    for (let dir = io.cwd; ; dir = dirname(dir)) {
      const found = readableStateDatabase(dir);
      if (found !== undefined) return { database: found };
      if (dir !== home && (existsSync(join(dir, '.git')) || findConfigFile(dir) !== undefined))
        return { project: dir };
      if (dirname(dir) === dir) break;
    }
    const inHome = home === undefined ? undefined : readableStateDatabase(home);
    return inHome === undefined ? {} : { database: inHome };
  } catch (error) {
    if (error instanceof UnsafeStateError)
      throw new CliError(error.message, EXIT_CODES.internalError, { cause: error });
    throw error;
  }
}
