import type { HookSessionRecord } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { guardSession } from '../src/hook/guardSession.js';
import { parseMemory } from '../src/hook/sessionMemory.js';
import { inMemorySession } from './hookHelpers.js';

/**
 * The command hook's stop before a repeat runs: a repeat is judged before it runs, taken to give
 * its last result again, only while nothing was changed since that result. After a change the
 * result may be the fix working; the stop then comes after the call, on the result it gave.
 */
describe('guardSession: a repeat foreseen only while nothing changed', () => {
  const { call, drive, context } = inMemorySession();
  const FAILING =
    'Traceback (most recent call last):\n  File "reproduce.py", line 3\nValueError: names differ\n';

  /** Four different changes to the code under test (not near-duplicates of each other). */
  const OLD = ['names = collect()', 'return names', 'self.cache = None', 'for app in apps:'];
  const NEW = [
    'names = sorted(collect())',
    'return list(dict.fromkeys(names))',
    'self.cache = {}',
    'for app in reversed(apps):',
  ];
  /** Argument objects: Claude Code's `Edit` of the code under test, then its `Bash` run of the repro. */
  const objectRound = (n: number, output = FAILING) => [
    ...call(
      'Edit',
      { file_path: '/p/src/loader.py', old_string: OLD[n - 1], new_string: NEW[n - 1] },
      `The file /p/src/loader.py has been updated:\n  ${10 * n}\t${NEW[n - 1]}`,
    ),
    ...call('Bash', { command: 'python3 reproduce.py' }, output, true),
  ];
  /** Command strings: the same round as shell lines (`sed -i` on the code under test, the repro). */
  const stringRound = (n: number, output = FAILING) => [
    ...call('bash', `sed -i 's/collect_${n}()/collect_${n}(sorted=True)/' src/loader.py`, ''),
    ...call('bash', 'python3 reproduce.py', output, true),
  ];

  for (const [shape, round] of [
    ['argument objects', objectRound],
    ['command strings', stringRound],
  ] as const) {
    it(`${shape}: the run after a change is not denied before it runs; the same result then stops after it`, () => {
      const { replies } = drive([1, 2, 3, 4].flatMap((n) => round(n)));
      const spoken = replies.map((r, i) => [i, r]).filter(([, r]) => r !== 'silent');
      // the nudge after the third run, the stop after the fourth (its pre-call event is silent)
      expect(spoken).toEqual([
        [11, 'nudge'],
        [15, 'stop'],
      ]);
    });

    it(`${shape}: the run after a change that gives another result (the fix worked) is neither denied nor stopped`, () => {
      const { replies } = drive([...[1, 2, 3].flatMap((n) => round(n)), ...round(4, 'All names match.\n')]);
      expect(replies.filter((r) => r === 'stop' || r === 'denied')).toEqual([]);
      expect(replies.slice(12)).toEqual(['silent', 'silent', 'silent', 'silent']);
    });
  }

  it('a repeat with only reads since its last result is still denied before it runs', () => {
    const failing = (n: number) => [
      ...call('Bash', { command: 'cat missing.txt' }, 'cat: missing.txt: No such file or directory', true),
      ...call('Read', { file_path: `/p/notes_${n}.md` }, `notes ${n}`),
    ];
    const { replies } = drive([1, 2, 3, 4, 5].flatMap(failing));
    expect(replies.filter((r) => r !== 'silent')).toEqual(['nudge', 'denied']);
  });

  it('a result remembered without its change count (a row written before it was kept) is not foreseen', () => {
    const events = [1, 2, 3, 4, 5].flatMap(() =>
      call('Bash', { command: 'cat missing.txt' }, 'cat: missing.txt: No such file or directory', true),
    );
    let session: HookSessionRecord | null = null;
    const replies: string[] = [];
    for (const event of events) {
      const { result, next } = guardSession(event, session, context);
      if (next !== undefined) {
        // as the build before wrote it: no `changes` in the remembered results
        const memory = JSON.parse(next.lastResults);
        for (const r of memory.results) delete r.changes;
        session = { ...next, lastResults: JSON.stringify(memory), createdAt: 0, updatedAt: 0 };
      }
      replies.push(result.kind === 'stop' && result.denied ? 'denied' : result.kind);
    }
    expect(replies).not.toContain('denied');
    expect(replies).toContain('stop');
  });

  it('parseMemory keeps a change count only when it is one', () => {
    const row = (changes: unknown) =>
      parseMemory(JSON.stringify({ results: [{ key: 'k', output: 'o', error: false, changes }], seen: [] }))
        .results[0];
    expect(row(3)).toEqual({ key: 'k', output: 'o', error: false, changes: 3 });
    expect(row(1.5)).toEqual({ key: 'k', output: 'o', error: false });
    expect(row('3')).toEqual({ key: 'k', output: 'o', error: false });
  });
});
