import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openHookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent } from './hookEvent.js';
import { isUsersOwn, sessionProjectDir } from './sessionProject.js';

/**
 * The project an event's session is recorded in: {@link sessionProjectDir}'s answer for the folder
 * it started in (`event.projectDir`), unless that project has no database yet and a project above
 * it, through the user's own folders, already holds the session (or, for a subagent's run, its
 * session): then that one, the nearest. A `.git` made during a session (`git init` or `touch .git`
 * in its folder, which names nothing of loopguard's and is never refused) ends the walk below the
 * project that guards it; without this the session's next calls started again in a new project,
 * without the project's budget, its off switch or the loop found so far (trust45). A project above
 * that never held the session is never taken: only the hooks wrote its rows.
 * Cost: where the project has its database (every call after a project's first), one `existsSync`
 * more than `sessionProjectDir`; else one per folder above, and a peek in each database found.
 * @param open - how a project's database is opened (the hook's, by default).
 */
export function heldSessionProject(agent: HookAgent, event: HookEvent, open = openHookDatabase): string {
  const project = sessionProjectDir(event.projectDir);
  if (existsSync(join(project, '.loopguard', 'state.db'))) return project;
  for (let folder = dirname(project); isUsersOwn(folder); folder = dirname(folder)) {
    if (existsSync(join(folder, '.loopguard', 'state.db')) && holds(folder, agent, event, open))
      return folder;
    if (dirname(folder) === folder) break;
  }
  return project;
}

/** Whether `project`'s database holds the event's session or its parent; a database the hooks refuse holds none. */
function holds(project: string, agent: HookAgent, event: HookEvent, open: typeof openHookDatabase): boolean {
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
}
