import { describe, expect, it } from 'vitest';
import type { ContextEntry } from '../../src/index.js';
import { recoveryViewOf, type SessionRow, sessionViewOf } from '../../src/internal.js';
import { stoppedRow } from './sessionRows.js';

// story56: the spend guard's reasons are stored as keys (`cap`, `share`, `burn_rate`,
// `unknown_price`); what a user reads of them (the sentence, the dashboard's entries and stop
// column) says them in words.
describe('the spend guard’s reasons in words', () => {
  const spendEntry = (reason: string): ContextEntry =>
    ({
      id: '1',
      timestamp: 0,
      entryType: 'decision',
      topic: reason === 'cap' ? 'spend_stop' : 'spend_warning',
      content: 'loopguard: …',
      relatedTasks: ['claude:s1'],
      metadata: { reason, scope: 'session' },
    }) as unknown as ContextEntry;

  it.each([
    ['cap', 'budget reached'],
    ['share', 'nearing its budget'],
    ['burn_rate', 'spending fast'],
    ['unknown_price', 'a model without a price'],
  ])('an entry of %s says "%s"', (reason, words) => {
    expect(recoveryViewOf(spendEntry(reason)).spendReason).toBe(words);
  });

  it('a loop entry has none', () => {
    const entry = { ...spendEntry('cap'), topic: 'loop_stop', metadata: { loopType: 'same_error' } };
    expect(recoveryViewOf(entry as ContextEntry).spendReason).toBeNull();
  });

  // a Claude Code session the spend guard stopped at call 4
  const stoppedOnSpend = (row: Partial<SessionRow>) => sessionViewOf({ ...stoppedRow, ...row });

  it('the sentence of a session stopped on spend says why in words', () => {
    const view = stoppedOnSpend({});
    expect(view.summary).toBe('stopped on spend at call 4 (budget reached), 4 tool calls ran');
    expect(view.stop).toMatchObject({ kind: 'cap', reason: 'budget reached' });
  });

  it("a session's dollars read as beside its cap in every field: status --json's cost agrees with the sentence (qa64)", () => {
    const view = stoppedOnSpend({ tokens: 52000, cost_usd: 0.504, unpriced_tokens: 0, budget_usd: 0.5 });
    expect(view.spendSummary).toBe('$0.504 of $0.50');
    expect(view.spend?.cost).toBe('$0.504');
  });
});
