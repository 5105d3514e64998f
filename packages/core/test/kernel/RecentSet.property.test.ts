import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentSet } from '../../src/kernel/RecentSet.js';
import { BoundedSeen } from '../../src/steps/history/boundedSeen.js';

describe('RecentSet', () => {
  it('finds every value among the last `generation` distinct ones added, and none older than 2 × `generation`', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 200 }),
        (generation, added) => {
          const seen = new RecentSet<string>(generation);
          const distinct: string[] = []; // in the order each was first added
          for (const n of added) if (seen.addNew(`msg_${n}`)) distinct.push(`msg_${n}`);
          for (const key of distinct.slice(-generation)) expect(seen.has(key)).toBe(true);
          const recent = distinct.slice(-2 * generation);
          for (const key of distinct.slice(0, -2 * generation))
            if (!recent.includes(key)) expect(seen.has(key)).toBe(false);
          const { previous, current } = seen.generations();
          expect(previous.length + current.length).toBeLessThanOrEqual(2 * generation);
        },
      ),
    );
  });

  it('addNew says whether a value was new, and keeps it', () => {
    const seen = new RecentSet<string>(2);
    expect([seen.addNew('a'), seen.addNew('a'), seen.addNew('b'), seen.has('a')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });

  it('a restored set finds what the original found', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 50 }), (added) => {
        const seen = new RecentSet<number>(4);
        for (const n of added) seen.add(n);
        const copy = new RecentSet<number>(4);
        copy.restore(seen.generations());
        for (const n of added) expect(copy.has(n)).toBe(seen.has(n));
      }),
    );
  });
});

describe('BoundedSeen (fingerprints)', () => {
  it('holds uint32 fingerprints as int32 and snapshots them as given', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 50 }), (added) => {
        const seen = new BoundedSeen(64);
        for (const n of added) seen.add(n);
        for (const n of added) expect(seen.has(n)).toBe(true);
        const snapshot = seen.snapshot() as { previous: number[]; current: number[] };
        expect([...snapshot.previous, ...snapshot.current].sort()).toEqual([...new Set(added)].sort());
        const copy = new BoundedSeen(64);
        copy.restore(snapshot);
        for (const n of added) expect(copy.has(n)).toBe(true);
      }),
    );
  });
});
