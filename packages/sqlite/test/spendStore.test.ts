import { ManualClock } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { openLoopGuardDatabase, SqliteSpendStore } from '../src/index.js';

describe('SqliteSpendStore.scopesUnder', () => {
  it("lists the scopes under a prefix only (not another session's whose id starts alike), newest first, at most the limit", () => {
    const clock = new ManualClock(1_000);
    const database = openLoopGuardDatabase(':memory:', { clock });
    const store = new SqliteSpendStore({ db: database.db, clock });
    const write = (scope: string, offset: number) => {
      clock.advance(10);
      store.update([scope], () => ({ next: new Map([[scope, { ledger: {}, offset }]]), result: undefined }));
    };
    write('subagent:codex:s1:a', 5);
    write('subagent:codex:s10:x', 7);
    write('subagent:codex:s1:b', 9);
    write('session:codex:s1', 11);
    write('subagent:codex:s1:c\u{FFFF}', 13);
    expect(store.scopesUnder('subagent:codex:s1:', 10)).toEqual([
      { scope: 'subagent:codex:s1:c\u{FFFF}', offset: 13 },
      { scope: 'subagent:codex:s1:b', offset: 9 },
      { scope: 'subagent:codex:s1:a', offset: 5 },
    ]);
    expect(store.scopesUnder('subagent:codex:s1:', 2).map((row) => row.scope)).toEqual([
      'subagent:codex:s1:c\u{FFFF}',
      'subagent:codex:s1:b',
    ]);
    expect(() => store.scopesUnder('', 1)).toThrow(/prefix/);
    database.close();
  });
});
