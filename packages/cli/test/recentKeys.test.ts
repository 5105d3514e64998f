import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentKeys } from '../src/scan/recentKeys.js';

describe('RecentKeys', () => {
  it('finds every key among the last `generation` distinct ones added, and none older than 2 × `generation`', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 200 }),
        (generation, added) => {
          const keys = new RecentKeys(generation);
          const distinct: string[] = []; // in the order each was first added, as the scan adds them
          for (const n of added) {
            const key = `msg_${n}`;
            if (keys.has(key)) continue;
            keys.add(key);
            distinct.push(key);
          }
          for (const key of distinct.slice(-generation)) expect(keys.has(key)).toBe(true);
          for (const key of distinct.slice(0, Math.max(0, distinct.length - 2 * generation)))
            if (!distinct.slice(-2 * generation).includes(key)) expect(keys.has(key)).toBe(false);
        },
      ),
    );
  });
});
