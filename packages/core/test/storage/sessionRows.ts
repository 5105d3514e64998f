import type { SessionRow } from '../../src/internal.js';

/** A Claude Code session's `agent_sessions` row, stopped on spend at call 4, as a reader hands it over. */
export const stoppedRow: SessionRow = {
  agent: 'claude',
  session_id: 's1',
  project_dir: '/repo',
  parent_session_id: null,
  agent_type: null,
  started_at: 0,
  last_active: 0,
  tool_calls: 4,
  nudges: 0,
  stops: 1,
  stop_topic: 'spend_stop',
  stop_kind: 'cap',
  stop_call: 4,
  stopped_at: 0,
  tokens: null,
  cost_usd: null,
  unpriced_tokens: null,
  budget_usd: null,
  budget_tokens: null,
  run_status: null,
  verdict: 'stopped_on_spend',
} as SessionRow;
