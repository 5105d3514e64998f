import { createHash } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { loopguardHome } from '../files/agentHome.js';
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
 * `$XDG_STATE_HOME/loopguard/unguarded-told`, else `~/.local/state/loopguard/unguarded-told`
 * (`loopguardHome`; relative folders ignored, as the XDG specification says); `undefined`:
 * nowhere. Never the project's `.loopguard`: that is the folder refused.
 */
export function toldFolder(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'loopguard', 'unguarded-told');
  const home = loopguardHome(env);
  return home === undefined ? undefined : join(home, '.local', 'state', 'loopguard', 'unguarded-told');
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
    // and above it: a folder another user can write in (an `XDG_STATE_HOME` in a shared folder) lets
    // her swap this one for hers, marks planted, between this check and the mark (trust46)
    if (!keptFromOthers(folder)) return true;
    closeSync(openSync(mark, 'wx', 0o600));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EEXIST';
  }
  removeOldMarks(folder, at);
  return true;
}

/**
 * Whether no other user can change what `folder` names: every folder above it (and above where
 * it leads, when one is a symbolic link) is the user's or root's, and none is open to others'
 * writes unless sticky (`/tmp`, where only an entry's owner moves it). Where the system has no
 * users (Windows), `true`.
 */
function keptFromOthers(folder: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  for (const path of new Set([folder, realpathSync(folder)])) {
    for (let above = dirname(path); ; above = dirname(above)) {
      const stats = lstatSync(above);
      if (stats.uid !== uid && stats.uid !== 0) return false;
      const openToOthers = (stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0;
      if (!stats.isSymbolicLink() && openToOthers) return false;
      if (dirname(above) === above) break;
    }
  }
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
