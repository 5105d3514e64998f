import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
// types only: `scan` reads this module, and its bundles load better-sqlite3 only where a record is read
import type { openHookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent } from './hookEvent.js';
import { isUsersOwn, sessionProjectDir } from './sessionProject.js';

/**
 * The project a session started in `dir` is recorded in: {@link sessionProjectDir}'s answer, unless
 * that project's database does not hold the session (it has none yet, or a session of its own made
 * it) and a project above it, through the user's own folders, already holds the session (`holds`):
 * then that one, the nearest. A `.git` made during a session (`git init` or `touch .git` in its
 * folder, which names nothing of loopguard's and is never refused) ends the walk below the project
 * that guards it; without this the session's next calls started again in a new project, without the
 * project's budget, its off switch or the loop found so far (trust45), also once a second session
 * started there has made that project's database (trust46). A project above that never held the
 * session is never taken: only the hooks write its rows.
 * @param holds - whether a project's `.loopguard/state.db` (which exists) holds the session.
 * @param askProject - whether `holds` is asked of the walk's own project when it has a database.
 *   The hooks pass `false`: they peek for the session in the database they open anyway
 *   (`guardProject`), and look above with {@link heldAbove} only where it is not there, so that a
 *   session's every call after its first in a database costs one `existsSync` more than
 *   `sessionProjectDir`. @default true
 */
export function heldSessionProject(
  dir: string,
  holds: (project: string) => boolean,
  askProject = true,
): string {
  const project = sessionProjectDir(dir);
  if (hasDatabase(project) && (!askProject || holds(project))) return project;
  return heldAbove(project, holds) ?? project;
}

/**
 * The nearest project above `project`, through the user's own folders, whose database holds the
 * session (`holds`), or `undefined`: one `existsSync` per folder up to the first another user owns
 * or every user shares, and `holds` of each database found.
 */
export function heldAbove(project: string, holds: (project: string) => boolean): string | undefined {
  for (let folder = dirname(project); isUsersOwn(folder); folder = dirname(folder)) {
    if (hasDatabase(folder) && holds(folder)) return folder;
    if (dirname(folder) === folder) break;
  }
  return undefined;
}

function hasDatabase(folder: string): boolean {
  return existsSync(join(folder, '.loopguard', 'state.db'));
}

/**
 * {@link heldSessionProject}'s `holds` for a hook event: the project's database, opened as the
 * hooks open it, has a row of the event's session or of its parent session (a subagent's run). A
 * database the hooks refuse, or cannot read, holds none.
 * @param open - how a project's database is opened (the hook's `openHookDatabase`).
 */
export function hookSessionHeld(
  agent: HookAgent,
  event: HookEvent,
  open: typeof openHookDatabase,
): (project: string) => boolean {
  return (project) => {
    let database: ReturnType<typeof openHookDatabase>;
    try {
      database = open(project, 0);
    } catch {
      return false;
    }
    try {
      const held = (sessionId: string) =>
        database.sessions.peek({ agent, sessionId, projectDir: project }) !== null;
      return held(event.sessionId) || (event.parentSessionId !== undefined && held(event.parentSessionId));
    } catch {
      return false;
    } finally {
      database.close();
    }
  };
}
