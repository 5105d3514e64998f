import { isAbsolute } from 'node:path';
import { type GuardVerdict, withoutReasonHead } from './guardVerdicts.js';
import { holdsSession, readProjectDatabase, recordingProject } from './projectDatabase.js';

/** The first line of a verdict's message without the `loopguard: ` a stop's reason starts with. */
function gist(message: string): string {
  return withoutReasonHead(message.split('\n')[0] ?? '');
}

/**
 * What loopguard's hooks recorded of a session in its project's `state.db` (the folder the hooks
 * keep it in, {@link recordingProject}): the first line of each nudge and stop they gave
 * (`loop_nudge`, `loop_stop` entries naming the session), as a check of the verdicts its
 * transcript seems to hold. `undefined` when the project keeps no record of the
 * session (no absolute project, no database, one refused, unreadable, or no row of the session).
 */
export function recordedVerdicts(
  agent: 'gemini',
  project: string | undefined,
  sessionId: string | undefined,
): string[] | undefined {
  if (project === undefined || sessionId === undefined || !isAbsolute(project)) return undefined;
  // the hooks keep a session started below its repository's project there (qa47, qa48, trust45)
  return readProjectDatabase(recordingProject(agent, sessionId, project), (db) => {
    if (!holdsSession(db, agent, sessionId)) return undefined;
    const rows = db
      .prepare(
        "SELECT content FROM context_entries WHERE topic IN ('loop_nudge', 'loop_stop') AND json_extract(metadata, '$.agent') = ? AND json_extract(metadata, '$.sessionId') = ? ORDER BY id",
      )
      .all(agent, sessionId) as Array<{ content: string }>;
    return rows.map((row) => gist(row.content));
  });
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
