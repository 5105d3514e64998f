import { RECOVERY_VIEW_TOPICS_SQL, RUN_STARTED_TOPIC, SESSION_ENDED_TOPIC } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * How long after its last event a hook session with no stop still counts as `running`: 10 minutes,
 * unless its agent said it ended (`SessionEnd`, a `session_ended` entry): a session killed, or one
 * whose hooks were installed before loopguard listened for its end, sends none.
 */
export const RUNNING_WINDOW_MS = 600_000;

/**
 * The verdicts of a stop, as versions 8 to 14 decided them: a `loopguard run` stored `budget_spent`
 * read `stopped_on_spend`, whether its spend guard stopped it or its iterations or time ran out.
 */
const SPEND_STOP_V14 = `WHEN e.topic = 'spend_stop' OR j.run_status = 'budget_spent' THEN 'stopped_on_spend'
    WHEN e.topic = 'loop_stop' OR j.run_status IN ('aborted', 'paused') THEN 'stopped'`;

/**
 * The verdicts of a stop from version 15 on (qa54): `stopped_on_spend` only where the spend guard
 * stopped it (its `spend_stop` entry: a run's carries its `runId`); a run that reached its
 * iterations or its time (`budget_spent` without one, `run`'s exit 5) was stopped by loopguard.
 */
const SPEND_STOP_V15 = `WHEN e.topic = 'spend_stop' THEN 'stopped_on_spend'
    WHEN e.topic = 'loop_stop' OR j.run_status IN ('aborted', 'paused', 'budget_spent') THEN 'stopped'`;

/**
 * The view `agent_sessions` (every door's sessions with their verdict), as the current schema has
 * it: version 8 made it, version 9 again after rebuilding `hook_sessions`, which it reads, and
 * version 10 with `refused_calls` (a hook session's `call_refused` entries, counted through
 * `context_entry_tasks` as its stop is found: no text of the row parsed), and version 11 with a
 * framework adapter's spend and budget (`a`: its `spend_stop` entry, which records what the run had
 * spent and the caps it reached; the adapters keep their ledger in memory, so no ledger row exists)
 * and its `run_started` entry (a run loopguard never spoke to is a session too), and version 12 with
 * a hook session's end (`ended_at`: its, or its parent session's, last `session_ended` entry; a
 * session is `running` only when no such entry follows its last event) and an adapter's run's
 * project (its `run_started` entry's `projectDir`) and, for a run stopped, its tool calls (its stop
 * entry's `toolCall`: the stop ends the run), and version 14 with an adapter's run's tally
 * (`adapter_runs`: its tool calls, spend, budget, last activity and end, written by the adapters as
 * the run goes on; a stop entry's figures come first).
 */
function agentSessionsView(tallies: string, spendStop = SPEND_STOP_V15, byDoor = true): string {
  // (version 16) a run's entries are its door's: an adapter's name theirs, a `loopguard run`'s none
  const runsOwn = byDoor ? " AND json_extract(e.metadata, '$.adapter') IS NULL" : '';
  const doorsOwn = byDoor ? " AND coalesce(json_extract(e.metadata, '$.adapter'), 'run') = s.agent" : '';
  return `
CREATE VIEW agent_sessions AS
WITH
  hook AS (
    SELECT h.agent, h.session_id, h.project_dir, h.parent_session_id, h.agent_type,
      h.created_at AS started_at, h.updated_at AS last_active, h.tool_calls, h.nudges, h.stops,
      (SELECT count(*) FROM context_entry_tasks t JOIN context_entries e ON e.id = t.entry_id
        WHERE t.task_id = h.agent || ':' || h.session_id AND e.topic = 'call_refused') AS refused_calls,
      h.agent || ':' || h.session_id AS entry_task, 'session:' || h.agent || ':' || h.session_id AS scope,
      NULL AS run_status,
      (SELECT max(t.timestamp) FROM context_entry_tasks t JOIN context_entries e ON e.id = t.entry_id
        WHERE t.task_id IN (h.agent || ':' || h.session_id, h.agent || ':' || h.parent_session_id)
          AND e.topic = '${SESSION_ENDED_TOPIC}') AS ended_at,
      NULL AS tally_tokens, NULL AS tally_cost_usd, NULL AS tally_unpriced_tokens, NULL AS tally_budget_usd,
      NULL AS tally_budget_tokens
    FROM hook_sessions h
  ),
  run AS (
    SELECT 'run' AS agent, r.id AS session_id, r.cwd AS project_dir, NULL AS parent_session_id,
      NULL AS agent_type, r.started_at, r.updated_at AS last_active, NULL AS tool_calls,
      (SELECT count(*) FROM context_entries e WHERE e.topic IN ${RECOVERY_VIEW_TOPICS_SQL}
         AND e.topic = 'loop_nudge' AND json_extract(e.metadata, '$.runId') = r.id${runsOwn}) AS nudges,
      (SELECT count(*) FROM context_entries e WHERE e.topic IN ${RECOVERY_VIEW_TOPICS_SQL}
         AND e.topic = 'loop_stop' AND json_extract(e.metadata, '$.runId') = r.id${runsOwn}) AS stops,
      0 AS refused_calls, NULL AS entry_task, 'run:' || r.id AS scope, r.status AS run_status, NULL AS ended_at,
      NULL AS tally_tokens, NULL AS tally_cost_usd, NULL AS tally_unpriced_tokens, NULL AS tally_budget_usd,
      NULL AS tally_budget_tokens
    FROM runs r
  ),
  adapter_entries AS (
    SELECT json_extract(e.metadata, '$.adapter') AS agent, json_extract(e.metadata, '$.runId') AS session_id,
      coalesce(max(json_extract(e.metadata, '$.projectDir')), '') AS project_dir, min(e.timestamp) AS started_at,
      max(e.timestamp) AS last_active, sum(e.topic = 'loop_nudge') AS nudges, sum(e.topic = 'loop_stop') AS stops
    FROM (
      SELECT topic, timestamp, metadata FROM context_entries WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL}
      UNION ALL
      SELECT topic, timestamp, metadata FROM context_entries WHERE topic = '${RUN_STARTED_TOPIC}'
    ) e
    WHERE json_extract(e.metadata, '$.adapter') IS NOT NULL AND json_extract(e.metadata, '$.runId') IS NOT NULL
    GROUP BY 1, 2
  ),
  adapter AS (
    SELECT g.agent, g.session_id, g.project_dir, NULL AS parent_session_id, NULL AS agent_type, g.started_at,
      max(g.last_active, coalesce(r.updated_at, 0)) AS last_active, r.tool_calls, g.nudges, g.stops,
      0 AS refused_calls, NULL AS entry_task, NULL AS scope, NULL AS run_status, r.ended_at,
      r.tokens AS tally_tokens, r.cost_usd AS tally_cost_usd, r.unpriced_tokens AS tally_unpriced_tokens,
      r.budget_usd AS tally_budget_usd, r.budget_tokens AS tally_budget_tokens
    FROM adapter_entries g LEFT JOIN ${tallies} r ON r.adapter = g.agent AND r.run_id = g.session_id
  ),
  every AS (SELECT * FROM hook UNION ALL SELECT * FROM run UNION ALL SELECT * FROM adapter),
  judged AS (
    SELECT s.*,
      CASE WHEN s.entry_task IS NOT NULL THEN
        (SELECT t.entry_id FROM context_entry_tasks t JOIN context_entries e ON e.id = t.entry_id
          WHERE t.task_id = s.entry_task AND e.topic IN ('loop_stop', 'spend_stop')
          ORDER BY t.timestamp, t.entry_id LIMIT 1)
      ELSE
        (SELECT e.id FROM context_entries e WHERE e.topic IN ${RECOVERY_VIEW_TOPICS_SQL}
          AND e.topic IN ('loop_stop', 'spend_stop') AND json_extract(e.metadata, '$.runId') = s.session_id${doorsOwn}
          ORDER BY e.timestamp, e.id LIMIT 1)
      END AS stop_entry_id
    FROM every s
  )
SELECT j.agent, j.session_id, j.project_dir, j.parent_session_id, j.agent_type, j.started_at, j.last_active,
  CASE WHEN j.scope IS NULL THEN coalesce(json_extract(e.metadata, '$.toolCall'), j.tool_calls) ELSE j.tool_calls END
    AS tool_calls,
  j.nudges, j.stops, j.refused_calls,
  e.topic AS stop_topic,
  coalesce(json_extract(e.metadata, '$.loopType'), json_extract(e.metadata, '$.reason')) AS stop_kind,
  json_extract(e.metadata, '$.toolCall') AS stop_call,
  e.timestamp AS stopped_at,
  coalesce(json_extract(l.ledger, '$.totals.tokens'), json_extract(a.metadata, '$.spent.tokens'), j.tally_tokens)
    AS tokens,
  coalesce(json_extract(l.ledger, '$.totals.costUsd'), json_extract(a.metadata, '$.spent.costUsd'), j.tally_cost_usd)
    AS cost_usd,
  coalesce(json_extract(l.ledger, '$.totals.unpricedTokens'), json_extract(a.metadata, '$.spent.unpricedTokens'),
    j.tally_unpriced_tokens) AS unpriced_tokens,
  CASE WHEN a.id IS NULL THEN coalesce(l.cap_usd, j.tally_budget_usd) ELSE json_extract(a.metadata, '$.caps.maxCostUsd') END
    AS budget_usd,
  CASE WHEN a.id IS NULL THEN coalesce(l.cap_tokens, j.tally_budget_tokens)
    ELSE json_extract(a.metadata, '$.caps.maxTokens') END AS budget_tokens,
  j.run_status,
  CASE
    ${spendStop}
    WHEN j.run_status = 'running'
      OR (j.run_status IS NULL AND j.last_active >= CAST(strftime('%s', 'now') AS INTEGER) * 1000 - ${RUNNING_WINDOW_MS}
        AND (j.ended_at IS NULL OR j.ended_at < j.last_active))
      THEN 'running'
    WHEN j.nudges > 0 THEN 'nudged'
    ELSE 'clean'
  END AS verdict
FROM judged j
LEFT JOIN context_entries e ON e.id = j.stop_entry_id
LEFT JOIN spend_ledgers l ON l.scope = j.scope
LEFT JOIN context_entries a ON a.id = j.stop_entry_id AND j.scope IS NULL AND a.topic = 'spend_stop';
`;
}

/**
 * The view `agent_sessions` as the current schema has it (version 14 on: the runs' tallies read;
 * version 15 on: a run's verdict of a stop as {@link SPEND_STOP_V15} says; version 16 on: a run's
 * stop and counts from its own door's entries, as PostgreSQL's reader finds them).
 */
export const AGENT_SESSIONS_VIEW_SQL: string = agentSessionsView('adapter_runs');

/**
 * The view as version 15 made it: a run's stop found by its run id alone, so that a framework's run
 * read the stop of another framework's run given the same id (pg68).
 */
export const AGENT_SESSIONS_VIEW_V15_SQL: string = agentSessionsView('adapter_runs', SPEND_STOP_V15, false);

/** The view as version 14 made it (a `budget_spent` run read `stopped_on_spend`). */
export const AGENT_SESSIONS_VIEW_V14_SQL: string = agentSessionsView('adapter_runs', SPEND_STOP_V14, false);

/**
 * The view as versions 8 to 13 made it: no run tallies (`adapter_runs` comes with version 14), so
 * that a database migrated through those versions reads its sessions at each of them.
 */
export const AGENT_SESSIONS_VIEW_V13_SQL: string = agentSessionsView(
  '(SELECT NULL AS adapter, NULL AS run_id, NULL AS updated_at, NULL AS tool_calls, NULL AS tokens, NULL AS cost_usd,' +
    ' NULL AS unpriced_tokens, NULL AS budget_usd, NULL AS budget_tokens, NULL AS ended_at WHERE 0)',
  SPEND_STOP_V14,
  false,
);

/**
 * Schema version 8: the session, one notion across doors. `hook_sessions` takes Codex, a
 * subagent's run of its own (`parent_session_id`, `agent_type`) and its tool calls; `spend_ledgers`
 * keeps the budget in force beside what was spent; the view `agent_sessions` reads every door's
 * sessions (hook sessions, `loopguard run`, the framework adapters) with their verdict. The view is
 * the one place a verdict is decided: `status`, the dashboard, `/metrics` and the status line read
 * it. Documented in `docs/sql.md` ("Sessions").
 */
export const AGENT_SESSIONS_SCHEMA_SQL = `
CREATE TABLE hook_sessions_v8 (
  agent             TEXT    NOT NULL CHECK (agent IN ('claude', 'gemini', 'codex')),
  session_id        TEXT    NOT NULL,
  project_dir       TEXT    NOT NULL,
  snapshot          TEXT    NOT NULL CHECK (json_valid(snapshot)),
  last_results      TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(last_results)),
  steps             INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
  nudges            INTEGER NOT NULL DEFAULT 0 CHECK (nudges >= 0),
  stops             INTEGER NOT NULL DEFAULT 0 CHECK (stops >= 0),
  enabled           INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  tool_calls        INTEGER NOT NULL DEFAULT 0 CHECK (tool_calls >= 0),
  parent_session_id TEXT,
  agent_type        TEXT,
  PRIMARY KEY (agent, session_id, project_dir)
) WITHOUT ROWID;
INSERT INTO hook_sessions_v8 (agent, session_id, project_dir, snapshot, last_results, steps, nudges, stops,
  enabled, created_at, updated_at, tool_calls)
SELECT agent, session_id, project_dir, snapshot, last_results, steps, nudges, stops, enabled, created_at,
  updated_at, steps / 2
FROM hook_sessions;
DROP TABLE hook_sessions;
ALTER TABLE hook_sessions_v8 RENAME TO hook_sessions;
CREATE INDEX hook_sessions_updated ON hook_sessions (updated_at);

ALTER TABLE spend_ledgers ADD COLUMN cap_usd REAL CHECK (cap_usd IS NULL OR cap_usd >= 0);
ALTER TABLE spend_ledgers ADD COLUMN cap_tokens INTEGER CHECK (cap_tokens IS NULL OR cap_tokens >= 0);
${AGENT_SESSIONS_VIEW_V13_SQL}`;

/** Applies schema version 8. */
export function up008AgentSessions(db: BetterSqlite3.Database): void {
  db.exec(AGENT_SESSIONS_SCHEMA_SQL);
}
