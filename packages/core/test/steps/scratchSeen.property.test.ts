import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCRATCH_SEEN_CAPACITY, ScratchSeen } from '../../src/steps/keys/scratchSeen.js';

/** What fingerprint does with its scratch set: add each value not seen yet, while there is room. */
function replay(seen: { has(v: number): boolean; add(v: number): unknown; size: number }, values: number[]) {
  const answers: boolean[] = [];
  for (const value of values) {
    const had = seen.has(value);
    answers.push(had);
    if (!had && seen.size < SCRATCH_SEEN_CAPACITY) seen.add(value);
  }
  return answers;
}

describe('ScratchSeen', () => {
  it('answers as a Set of the int32 values would, across clears', () => {
    const scratch = new ScratchSeen();
    // few distinct values (collisions, repeats) and the whole uint32 range (values above 2^31)
    const value = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.nat({ max: 0xffffffff }), fc.integer());
    fc.assert(
      fc.property(fc.array(fc.array(value, { maxLength: 400 }), { maxLength: 4 }), (rounds) => {
        for (const values of rounds) {
          scratch.clear();
          const plain = new Set<number>();
          const asInt32 = {
            has: (v: number) => plain.has(v | 0),
            add: (v: number) => plain.add(v | 0),
            get size() {
              return plain.size;
            },
          };
          expect(replay(scratch, values)).toEqual(replay(asInt32, values));
          expect(scratch.size).toBe(plain.size);
        }
      }),
    );
  });

  it('holds at most its capacity, and a uint32 and its int32 are one value', () => {
    const scratch = new ScratchSeen();
    scratch.clear();
    for (let i = 0; i < SCRATCH_SEEN_CAPACITY + 10; i++) scratch.add(i * 7919);
    expect(scratch.size).toBe(SCRATCH_SEEN_CAPACITY);
    expect(scratch.has(SCRATCH_SEEN_CAPACITY * 7919)).toBe(false);
    scratch.clear();
    scratch.add(0xfffffffe);
    expect(scratch.has(-2)).toBe(true);
    expect(scratch.has(0)).toBe(false);
  });
});
