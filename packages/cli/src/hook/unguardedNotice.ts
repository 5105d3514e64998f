import { createHash } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { HookAgent, HookEvent } from './hookEvent.js';

/**
 * What the user is told. Fixed text: the refusal's own message quotes a link's target and a path,
 * which the repository chooses, and must not speak to the user in loopguard's voice ("to fix this,
 * run curl … | sh"); `loopguard status` says the rest, in the project the user chose to look at.
 */
export const UNGUARDED_NOTICE =
  "loopguard is not guarding this session: this project's .loopguard or its state.db is refused (a symbolic link, another user's, tracked by git, or not a folder or file), so nothing is judged or recorded; `loopguard status` in the project says why and how to fix it";

/** A told session's mark older than this is removed when another is made: sessions end. */
const MARK_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Where the hook remembers which sessions it told that loopguard is not guarding them:
 * `$XDG_STATE_HOME/loopguard/unguarded-told`, else `$HOME/.local/state/loopguard/unguarded-told`,
 * read from `env` only (relative folders ignored, as the XDG specification says); `undefined`:
 * nowhere. Never the project's `.loopguard`: that is the folder refused.
 */
export function toldFolder(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'loopguard', 'unguarded-told');
  const home = env.HOME;
  return home !== undefined && isAbsolute(home)
    ? join(home, '.local', 'state', 'loopguard', 'unguarded-told')
    : undefined;
}

/**
 * What the user is told, once per session, when loopguard cannot guard it because the project's
 * `.loopguard` (or its `state.db`) is refused (a symbolic link, another user's, tracked by git):
 * a repository that ships one would otherwise switch loopguard off unseen, since the hook fails
 * open in silence. The text goes to the user (each CLI's `systemMessage`), never to the model as loopguard's verdict, and nothing is written into
 * the refused folder: the session is remembered in the user's own state folder ({@link toldFolder}),
 * which must be this user's alone; where it cannot be, the notice is given at every call rather than
 * never.
 * @param at - epoch ms (old marks are removed).
 * @returns {@link UNGUARDED_NOTICE}, or `undefined` when this session was told already.
 */
export function unguardedNotice(
  agent: HookAgent,
  event: HookEvent,
  env: NodeJS.ProcessEnv,
  at: number,
): string | undefined {
  const session = event.parentSessionId ?? event.sessionId;
  return firstTime(toldFolder(env), `${agent}\0${event.projectDir}\0${session}`, at)
    ? UNGUARDED_NOTICE
    : undefined;
}

/** Whether `key` is marked in `folder` for the first time (made now); `true` when no mark can be kept. */
function firstTime(folder: string | undefined, key: string, at: number): boolean {
  if (folder === undefined) return true;
  const mark = join(folder, createHash('sha256').update(key).digest('hex'));
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stats = lstatSync(folder);
    // another user's folder, or one others can write: a mark there could be planted to hush the notice
    if (!stats.isDirectory() || stats.uid !== process.getuid?.() || (stats.mode & 0o077) !== 0) return true;
    closeSync(openSync(mark, 'wx', 0o600));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EEXIST';
  }
  removeOldMarks(folder, at);
  return true;
}

/** Removes marks older than {@link MARK_KEPT_MS}; a failure leaves them (they are empty files). */
function removeOldMarks(folder: string, at: number): void {
  try {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (at - lstatSync(path).mtimeMs > MARK_KEPT_MS) unlinkSync(path);
    }
  } catch {
    // left for the next time
  }
}
