import { describe, expect, it } from 'vitest';
import type { ContextEntry } from '../../src/index.js';
import {
  loopKindWords,
  messageWords,
  recoveryViewOf,
  runReasonWords,
  sessionViewOf,
} from '../../src/internal.js';
import { ADVICE } from '../../src/steps/stepLoopMessage.js';
import { taskPageOf } from '../../src/storage/taskPage.js';
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

// sess68: what doors67 left: the agent's message quoted by `status --session` and the dashboard,
// `run`'s stored reason shown back, a task's newest recovery in the Tasks tables
describe('what a person reads quoted or shown back says the kind in words; the stored text keeps it', () => {
  it('the message the agent got, quoted: its kind in words, the rest as the agent read it', () => {
    expect(messageWords('Stopped (same_error): call 5 was refused before it ran.')).toBe(
      'Stopped (same error): call 5 was refused before it ran.',
    );
    expect(messageWords('loopguard: Stopped (near_duplicate): the loop went on')).toBe(
      'loopguard: Stopped (near-identical calls): the loop went on',
    );
    expect(messageWords('Loop detected (outcome_stagnation): edits ran, same result')).toBe(
      'Loop detected (same result after edits): edits ran, same result',
    );
    // a text that is no loop message is left as it is, a code inside it too
    for (const text of ['UNBLOCK AUTHORITY GRANTED: Task T1 (same_error)', 'ran: Stopped (same_error)'])
      expect(messageWords(text)).toBe(text);
  });

  it('a loop entry quotes its message in words beside the stored content', () => {
    const entry = {
      id: '1',
      timestamp: 0,
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'Stopped (same_error): the loop went on after the nudge',
      relatedTasks: ['claude:s1'],
      metadata: { loopType: 'same_error', toolCall: 4 },
    } as unknown as ContextEntry;
    expect(recoveryViewOf(entry)).toMatchObject({
      content: 'Stopped (same_error): the loop went on after the nudge',
      contentText: 'Stopped (same error): the loop went on after the nudge',
    });
  });

  it("run's stored reason of a mid-run stop reads the kind in words", () => {
    expect(
      runReasonWords(
        'step_loop_stopped: stopped mid-run by the loop detector: same_error (2 in a row, threshold 2)',
      ),
    ).toBe('stopped mid-run by the loop detector: same error (2 in a row, threshold 2)');
  });

  it("a task's newest recovery in words beside its topic", () => {
    const row = (id: string, last: string | null) => ({
      id,
      title: id,
      status: 'blocked',
      blocked_reason: null,
      attempt_count: 0,
      last_attempt: null,
      last_recovery: last,
    });
    const { tasks } = taskPageOf(
      [
        row('T1', 'loop_escalation'),
        row('T2', 'loop_recovery'),
        row('T3', 'unblock_authority'),
        row('T4', null),
      ],
      10,
      4,
    );
    expect(tasks.map((t) => [t.lastRecovery, t.lastRecoveryText])).toEqual([
      ['loop_escalation', 'escalate'],
      ['loop_recovery', 'force next'],
      ['unblock_authority', 'unblock authority'],
      [null, null],
    ]);
  });
});
