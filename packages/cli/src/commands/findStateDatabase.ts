import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliIo } from '../cliIo.js';

/**
 * The loopguard database an inspecting command reads when no store is given: the nearest
 * `.loopguard/state.db` from the working directory up to the root (what the hooks and `loopguard
 * run` write in the project), else `~/.loopguard/state.db` (what the hooks write for sessions
 * started in the home folder, as an `init --user` install sees them); `undefined` when neither exists.
 * @example findStateDatabase({ cwd: '/repo/src', env: { HOME: '/home/me' } }); // '/repo/.loopguard/state.db'
 */
export function findStateDatabase(io: Pick<CliIo, 'cwd' | 'env'>): string | undefined {
  for (let dir = io.cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, '.loopguard', 'state.db');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  const home = io.env.HOME;
  const user = home === undefined || home === '' ? undefined : join(home, '.loopguard', 'state.db');
  return user !== undefined && existsSync(user) ? user : undefined;
}
