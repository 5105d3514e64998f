import { dirname } from 'node:path';
import { loopguardHome } from '../agentHome.js';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { EXIT_CODES } from '../exitCodes.js';
import { UnsafeStateError } from '../stateFolder.js';
import { readableStateDatabase } from '../stateSchema.js';

/**
 * The loopguard database an inspecting command reads when no store is given: the nearest
 * `.loopguard/state.db` from the working directory up to the root (what the hooks and `loopguard
 * run` write in the project), else `~/.loopguard/state.db` (what the hooks write for sessions
 * started in the home folder, as an `init --user` install sees them); `undefined` when neither exists.
 * @throws CliError (exit 1) when the nearest one is a symbolic link or another user's
 * @example findStateDatabase({ cwd: '/repo/src', env: { HOME: '/home/me' } }); // '/repo/.loopguard/state.db'
 */
export function findStateDatabase(io: Pick<CliIo, 'cwd' | 'env'>): string | undefined {
  const home = loopguardHome(io.env);
  try {
    for (let dir = io.cwd; ; dir = dirname(dir)) {
      const found = readableStateDatabase(dir);
      if (found !== undefined) return found;
      if (dirname(dir) === dir) break;
    }
    return home === undefined ? undefined : readableStateDatabase(home);
  } catch (error) {
    if (error instanceof UnsafeStateError)
      throw new CliError(error.message, EXIT_CODES.internalError, { cause: error });
    throw error;
  }
}
