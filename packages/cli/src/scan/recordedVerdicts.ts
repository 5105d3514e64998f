import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { sessionProjectDir } from '../hook/sessionProject.js';
import { ownStateDatabase } from '../stateFolder.js';
import type { GuardVerdict } from './guardVerdicts.js';

/** The first line of a verdict's message without the `loopguard: ` a stop's reason starts with. */
function gist(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/^loopguard: /, '');
}

/**
 * What loopguard's hooks recorded of a session in its project's `state.db` (the folder the hooks keep
 * it in, `sessionProjectDir`): the first line of each
 * nudge and stop they gave (`loop_nudge`, `loop_stop` entries naming the session), as a check of
 * the verdicts its transcript seems to hold. `undefined` when the project keeps no record of the
 * session (no absolute project, no database, one refused, unreadable, or no row of the session).
 */
export function recordedVerdicts(
  agent: 'gemini',
  project: string | undefined,
  sessionId: string | undefined,
): string[] | undefined {
  if (project === undefined || sessionId === undefined || !isAbsolute(project)) return undefined;
  try {
    // the hooks keep a session started below its repository's project there (qa47, qa48)
    const path = ownStateDatabase(sessionProjectDir(project));
    if (path === undefined) return undefined;
    // loaded here only: most scans read no Gemini CLI verdict, and the scan's bundles leave the addon out
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const known = db
        .prepare('SELECT 1 FROM hook_sessions WHERE agent = ? AND session_id = ? LIMIT 1')
        .get(agent, sessionId);
      if (known === undefined) return undefined;
      const rows = db
        .prepare(
          "SELECT content FROM context_entries WHERE topic IN ('loop_nudge', 'loop_stop') AND json_extract(metadata, '$.agent') = ? AND json_extract(metadata, '$.sessionId') = ? ORDER BY id",
        )
        .all(agent, sessionId) as Array<{ content: string }>;
      return rows.map((row) => gist(row.content));
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * The verdicts of `guard` that loopguard gave, where its record is known: a nudge or a stop whose
 * first line is one of `recorded`'s not used yet (each recorded verdict confirms one), and every
 * other verdict (a refusal, a spend stop). `recorded` undefined: all of them, as the transcript says.
 * @param recorded - {@link recordedVerdicts}; the entries that confirm a verdict are taken out.
 */
export function confirmedVerdicts(guard: GuardVerdict[], recorded: string[] | undefined): GuardVerdict[] {
  if (recorded === undefined) return guard;
  return guard.filter((verdict) => {
    if (verdict.action !== 'nudge' && verdict.action !== 'stop') return true;
    const at = recorded.indexOf(gist(verdict.message));
    if (at < 0) return false;
    recorded.splice(at, 1);
    return true;
  });
}
