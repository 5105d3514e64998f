import { describe, expect, it } from 'vitest';
import type { ContextEntry } from '../../src/index.js';
import { loopKindWords, recoveryViewOf, type SessionRow, sessionViewOf } from '../../src/internal.js';
import { ADVICE } from '../../src/steps/stepLoopMessage.js';

// doors67: a loop's kind is stored as a code (`near_duplicate`); what a person reads of it (the
// sentence of `status`, the dashboard and the status line, the dashboard's stop column and entries,
// `scan`'s kind column) says it in words; `--json`, SQL and the stored rows keep the code.
describe('a loop’s kind in words', () => {
  it.each(Object.keys(ADVICE))('%s reads in words, no code', (kind) => {
    expect(loopKindWords(kind)).toMatch(/^[a-z][a-z -]+[a-z]$/);
  });

  it('a kind this build does not know reads with spaces for its underscores', () => {
    expect(loopKindWords('blocked_task_spin')).toBe('blocked task spin');
  });

  const stopped = (kind: string) =>
    sessionViewOf({
      agent: 'claude',
      session_id: 's1',
      project_dir: '/repo',
      parent_session_id: null,
      agent_type: null,
      started_at: 0,
      last_active: 0,
      tool_calls: 3,
      nudges: 1,
      stops: 1,
      stop_topic: 'loop_stop',
      stop_kind: kind,
      stop_call: 4,
      stopped_at: 0,
      tokens: null,
      cost_usd: null,
      unpriced_tokens: null,
      budget_usd: null,
      budget_tokens: null,
      run_status: null,
      verdict: 'stopped',
    } as SessionRow);

  it('the sentence and the stop say the kind in words; the kind keeps its code', () => {
    const view = stopped('near_duplicate');
    expect(view.summary).toBe(
      'stopped by loopguard at call 4 (near-identical calls), 3 tool calls ran, 1 nudge',
    );
    expect(view.stop).toMatchObject({ kind: 'near_duplicate', reason: 'near-identical calls' });
  });

  it('a loop entry says its kind in words beside its code', () => {
    const entry = {
      id: '1',
      timestamp: 0,
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'Stopped (same_error): …',
      relatedTasks: ['claude:s1'],
      metadata: { loopType: 'same_error', toolCall: 4 },
    } as unknown as ContextEntry;
    expect(recoveryViewOf(entry)).toMatchObject({ loopType: 'same_error', loopTypeText: 'same error' });
  });
});
