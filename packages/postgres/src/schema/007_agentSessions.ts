import { RECOVERY_VIEW_TOPICS_SQL, RUN_STARTED_TOPIC } from '@loopguard/core/internal';

/**
 * Schema version 7 on PostgreSQL: the view `agent_sessions`, SQLite's (its columns, its verdicts;
 * docs/sql.md, "Sessions"), over what a fleet's store holds: the framework adapters' runs, from their
 * entries (a run's entries are those whose metadata names its `adapter` and `runId`; a run that left
 * only its `run_started` entry is a session too, its project that entry's `projectDir`) and their
 * tallies (`adapter_runs`). A run stopped has its stop entry's `toolCall` as its tool calls, and a run
 * stopped on spend what its `spend_stop` entry recorded (`metadata.spent`, `metadata.caps`). Before,
 * `PgStatusReader` held this query, and the sessions queries of docs/sql.md ran on SQLite only (pg68):
 * the verdict is now decided in the view on both stores, and read by every door through it.
 */
export const AGENT_SESSIONS_VIEW_SQL = `
CREATE VIEW agent_sessions AS
WITH grouped AS (
  SELECT e.metadata->>'adapter' AS agent, e.metadata->>'runId' AS session_id,
    coalesce(max(e.metadata->>'projectDir'), '') AS project_dir, min(e.timestamp) AS started_at,
    max(e.timestamp) AS last_active,
    count(*) FILTER (WHERE e.topic = 'loop_nudge') AS nudges, count(*) FILTER (WHERE e.topic = 'loop_stop') AS stops,
    (array_agg(e.id ORDER BY e.timestamp, e.id) FILTER (WHERE e.topic IN ('loop_stop', 'spend_stop')))[1] AS stop_entry_id
  FROM (
    SELECT id, topic, timestamp, metadata FROM context_entries WHERE topic IN ${RECOVERY_VIEW_TOPICS_SQL}
    UNION ALL
    SELECT id, topic, timestamp, metadata FROM context_entries WHERE topic = '${RUN_STARTED_TOPIC}'
  ) AS e
  WHERE e.metadata ? 'adapter' AND e.metadata ? 'runId'
  GROUP BY 1, 2
)
SELECT g.agent, g.session_id, g.project_dir, NULL::text AS parent_session_id, NULL::text AS agent_type,
  g.started_at, greatest(g.last_active, r.updated_at) AS last_active,
  coalesce((s.metadata->>'toolCall')::integer, r.tool_calls) AS tool_calls, g.nudges, g.stops,
  0 AS refused_calls, s.topic AS stop_topic,
  coalesce(s.metadata->>'loopType', s.metadata->>'reason') AS stop_kind,
  (s.metadata->>'toolCall')::integer AS stop_call, s.timestamp AS stopped_at,
  coalesce((a.metadata #>> '{spent,tokens}')::bigint, r.tokens) AS tokens,
  coalesce((a.metadata #>> '{spent,costUsd}')::double precision, r.cost_usd) AS cost_usd,
  coalesce((a.metadata #>> '{spent,unpricedTokens}')::bigint, r.unpriced_tokens) AS unpriced_tokens,
  CASE WHEN a.id IS NULL THEN r.budget_usd ELSE (a.metadata #>> '{caps,maxCostUsd}')::double precision END AS budget_usd,
  CASE WHEN a.id IS NULL THEN r.budget_tokens ELSE (a.metadata #>> '{caps,maxTokens}')::bigint END AS budget_tokens,
  NULL::text AS run_status,
  CASE
    WHEN s.topic = 'spend_stop' THEN 'stopped_on_spend'
    WHEN s.topic = 'loop_stop' THEN 'stopped'
    WHEN greatest(g.last_active, r.updated_at) >= (extract(epoch FROM now()) * 1000)::bigint - 600000
      AND (r.ended_at IS NULL OR r.ended_at < greatest(g.last_active, r.updated_at)) THEN 'running'
    WHEN g.nudges > 0 THEN 'nudged'
    ELSE 'clean'
  END AS verdict
FROM grouped AS g LEFT JOIN adapter_runs AS r ON r.adapter = g.agent AND r.run_id = g.session_id
  LEFT JOIN context_entries AS s ON s.id = g.stop_entry_id
  LEFT JOIN context_entries AS a ON a.id = g.stop_entry_id AND a.topic = 'spend_stop';
`;
