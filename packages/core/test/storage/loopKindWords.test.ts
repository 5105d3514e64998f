import { describe, expect, it } from 'vitest';
import type { ContextEntry } from '../../src/index.js';
import { loopKindWords, recoveryViewOf, sessionViewOf } from '../../src/internal.js';
import { ADVICE } from '../../src/steps/stepLoopMessage.js';
import { stoppedRow } from './sessionRows.js';

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

  // a Claude Code session stopped in a loop at call 4, as a reader hands it over
  const stopped = (kind: string) =>
    sessionViewOf({
      ...stoppedRow,
      nudges: 1,
      tool_calls: 3,
      stop_topic: 'loop_stop',
      stop_kind: kind,
      verdict: 'stopped',
    });

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
