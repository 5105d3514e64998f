import type { SubagentVerdictRow } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { agentProcessGone } from './agentProcess.js';

/** The SQL function the reading connection's view calls: 1 when the process `agent_process` names is gone. */
const GONE_FUNCTION = 'loopguard_agent_process_gone';

/**
 * Makes `agent_sessions` on this connection say `clean` (or `nudged`) of a hook session the view
 * calls `running` whose agent CLI's process is known to be gone ({@link agentProcessGone}: killed
 * without its end event, a closed terminal): a temporary view of the same name over the database's,
 * which every query of the connection then reads (its counts and filters too), so every door (`status`,
 * the dashboard, the status line, `scan`'s record) tells the same. The file is not written: this works
 * on a read-only connection, and the database's own view (what `sqlite3` shows) keeps the 10-minute
 * rule. It also says, as `switched_off` (1, else 0 or `NULL`), whether the user switched the session
 * off (`enabled = 0` on its row, or on its session's row for a subagent's run: the hooks' own rule),
 * so that every door says so (codex58). A `loopguard run` still running reads `running` though its
 * stream watcher stopped an iteration (a `loop_stop` entry: the run goes on; sessions59). A database older than schema 13 (no `agent_process`) is left
 * as it is. Idempotent.
 */
export function readLiveSessions(db: BetterSqlite3.Database): void {
  const temp = db
    .prepare("SELECT 1 FROM sqlite_temp_master WHERE type = 'view' AND name = 'agent_sessions'")
    .get();
  if (temp !== undefined) return;
  const hasColumn = db
    .prepare("SELECT 1 FROM pragma_table_info('hook_sessions') WHERE name = 'agent_process'")
    .get();
  const columns = (
    db.prepare("SELECT name FROM pragma_table_info('agent_sessions')").all() as { name: string }[]
  )
    .map((c) => c.name)
    .filter((name) => name !== 'verdict');
  if (hasColumn === undefined || columns.length === 0) return;
  db.function(GONE_FUNCTION, { deterministic: false }, (id: unknown) =>
    typeof id === 'string' && agentProcessGone(id) ? 1 : 0,
  );
  // One statement, prepared (never `exec`, which runs any that follow), and each name quoted: the
  // names are the file's own (a database loopguard did not make may be read), not ours (trust47).
  db.prepare(`CREATE TEMP VIEW agent_sessions AS
    SELECT ${columns.map((c) => `s.${quotedName(c)}`).join(', ')},
      CASE WHEN s.agent = 'run' AND s.run_status = 'running' THEN 'running'
        WHEN s.verdict = 'running' AND ${GONE_FUNCTION}((SELECT h.agent_process FROM main.hook_sessions h
          WHERE h.agent = s.agent AND h.session_id = s.session_id AND h.project_dir = s.project_dir)) = 1
        THEN CASE WHEN s.nudges > 0 THEN 'nudged' ELSE 'clean' END
        ELSE s.verdict END AS verdict,
      (SELECT max(h.enabled = 0) FROM main.hook_sessions h WHERE h.agent = s.agent
          AND h.project_dir = s.project_dir AND h.session_id IN (s.session_id, s.parent_session_id)) AS switched_off
    FROM main.agent_sessions s`).run();
}

/** `name` as an SQL identifier: in double quotes, each of its own doubled. */
function quotedName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The columns every door reads of `agent_sessions` (`status`'s reader, the status line and `scan`'s
 * record alike), for `SELECT ${sessionRowColumns(db)} FROM agent_sessions`: the view's, a run's
 * `run_reason` (the runs table's: story56) and `stop_iteration`, the iteration its stop fell in (its
 * call counts that iteration's agent session: sessions60), and of a hook session's stops after its
 * first ({@link laterStops}) `denied_after_stop`, those that denied a call before it ran,
 * `stopped_again`, the others, and `last_stop_call`, the call the last of those fell at (sess64). None is a column of the view,
 * whose change would be a schema version; a run's are `NULL` in a database without runs.
 */
export function sessionRowColumns(db: BetterSqlite3.Database): string {
  const stops = `${laterStops('count(*)', DENIED_STOP)} AS denied_after_stop,
    ${laterStops('count(*)', `NOT ${DENIED_STOP}`)} AS stopped_again,
    ${laterStops("json_extract(e.metadata, '$.toolCall')", `NOT ${DENIED_STOP}`, 'DESC')} AS last_stop_call`;
  const runs = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get();
  if (runs === undefined) return `*, NULL AS run_reason, NULL AS stop_iteration, ${stops}`;
  return `*, ${stops},
    (SELECT r.reason FROM runs r WHERE agent_sessions.agent = 'run' AND r.id = agent_sessions.session_id)
      AS run_reason,
    (SELECT json_extract(e.metadata, '$.iteration') FROM context_entries e
      WHERE agent_sessions.agent = 'run' AND e.topic = agent_sessions.stop_topic
        AND e.timestamp = agent_sessions.stopped_at AND json_extract(e.metadata, '$.runId') = agent_sessions.session_id
      ORDER BY e.id LIMIT 1) AS stop_iteration`;
}

/**
 * A stop entry that denied its call before it ran: a loop stop so marked (`deniedBeforeRun`), or a
 * spend stop answered to a call about to run (its `hookEvent`; the spend guard judges a session at
 * its budget there, and marks nothing).
 */
const DENIED_STOP = `(coalesce(json_extract(e.metadata, '$.deniedBeforeRun'), 0) = 1
  OR (e.topic = 'spend_stop' AND coalesce(json_extract(e.metadata, '$.hookEvent'), '') IN ('PreToolUse', 'BeforeTool')))`;

/**
 * `select` of a session's stop entries after its first (the first as the view finds it: by time,
 * then entry id), those `where` holds, by time in `order`. A Codex session, or a Gemini CLI
 * subagent, goes on after its stop, each repeat denied a stop of its own; a session resumed after its
 * stop (`claude --resume`, a framework's run guarded again under its `runId`) may be stopped again,
 * after a call ran. A hook session's entries are found through `context_entry_tasks`, a framework
 * adapter's by its `runId` and `adapter` (pg68: as `PgStatusReader` finds them); a `loopguard run`
 * has none (its stops are its iterations').
 */
function laterStops(select: string, where: string, order: 'ASC' | 'DESC' = 'ASC'): string {
  const adapterStop = (e: string) => `${e}.topic IN ('loop_stop', 'spend_stop')
        AND json_extract(${e}.metadata, '$.runId') = agent_sessions.session_id
        AND json_extract(${e}.metadata, '$.adapter') = agent_sessions.agent`;
  // only a session stopped has a stop after its first: the others (most) read no entry
  return `CASE WHEN agent_sessions.stop_topic IS NULL OR agent_sessions.agent = 'run' THEN NULL
    WHEN agent_sessions.agent IN ('claude', 'codex', 'gemini') THEN
    (SELECT ${select} FROM context_entry_tasks t JOIN context_entries e ON e.id = t.entry_id
      WHERE t.task_id = agent_sessions.agent || ':' || agent_sessions.session_id
        AND e.topic IN ('loop_stop', 'spend_stop') AND ${where}
        AND t.entry_id <> (SELECT f.entry_id FROM context_entry_tasks f JOIN context_entries g ON g.id = f.entry_id
          WHERE f.task_id = t.task_id AND g.topic IN ('loop_stop', 'spend_stop') ORDER BY f.timestamp, f.entry_id LIMIT 1)
      ORDER BY t.timestamp ${order}, t.entry_id ${order} LIMIT 1)
    ELSE
    (SELECT ${select} FROM context_entries e
      WHERE ${adapterStop('e')} AND ${where}
        AND e.id <> (SELECT g.id FROM context_entries g WHERE ${adapterStop('g')} ORDER BY g.timestamp, g.id LIMIT 1)
      ORDER BY e.timestamp ${order}, e.id ${order} LIMIT 1) END`;
}

/**
 * The counts of `parents`' subagents' runs by the verdicts a session's sentence names (stopped,
 * stopped on spend, nudged), from `agent_sessions`: `status`'s reader passes a page's main sessions,
 * the status line its session and the subagents' ids its transcripts name (a look-up by id: no read
 * of every row after each reply), so every door ends the sentence alike (doors67).
 * @example subagentVerdictRows(db, [{ agent: 'claude', session_id: 'main' }]); // [{ agent: 'claude', parent_session_id: 'main', verdict: 'stopped', n: 1 }]
 */
export function subagentVerdictRows(
  db: BetterSqlite3.Database,
  parents: readonly { agent: string; session_id: string }[],
  subagentIds?: readonly string[],
): SubagentVerdictRow[] {
  if (parents.length === 0 || subagentIds?.length === 0) return [];
  const ids = subagentIds === undefined ? '' : `AND session_id IN (${subagentIds.map(() => '?').join(', ')})`;
  return db
    .prepare(
      `SELECT agent, parent_session_id, verdict, count(*) AS n FROM agent_sessions
       WHERE (agent, parent_session_id) IN (VALUES ${parents.map(() => '(?, ?)').join(', ')}) ${ids}
         AND verdict IN ('stopped', 'stopped_on_spend', 'nudged')
       GROUP BY agent, parent_session_id, verdict`,
    )
    .all(...parents.flatMap((p) => [p.agent, p.session_id]), ...(subagentIds ?? [])) as SubagentVerdictRow[];
}
