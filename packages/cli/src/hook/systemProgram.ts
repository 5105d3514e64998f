import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The folders of the system's programs, which only root writes (`/usr/local/bin` is not one:
 * Homebrew's on an Intel Mac is the user's).
 */
const SYSTEM_FOLDERS = new Set(['/bin', '/usr/bin', '/sbin', '/usr/sbin']);

/** The search path of a shell started with no `PATH`, its system part. */
const DEFAULT_PATH = '/usr/bin:/bin';

/** Whether `file` is a file some user may run. */
function executable(file: string): boolean {
  try {
    const stat = statSync(file);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * Whether a shell with `path` (a `PATH`) in the folder `dir` runs the system's `name` (trust70): the
 * first `name` on it is in one of {@link SYSTEM_FOLDERS}. A `name` found before it in another
 * folder (one the model wrote into `~/.local/bin`, or a relative folder of the project's such as
 * `./node_modules/.bin`, or the project itself for an empty entry) makes it another program, which
 * may do anything.
 * @example isSystemProgram('cat', '/usr/bin:/bin', '/repo'); // true
 */
export function isSystemProgram(name: string, path: string | undefined, dir: string): boolean {
  for (const folder of (path ?? DEFAULT_PATH).split(':')) {
    if (executable(join(resolve(dir, folder), name)))
      return SYSTEM_FOLDERS.has(folder.replace(/(?<=.)\/+$/, ''));
  }
  return false;
}
