import { describe, expect, it } from 'vitest';
import { numberOf, recordOf } from '../../src/kernel/jsonValues.js';

describe('loose readers of JSON values', () => {
  it('recordOf: an object as it is; an array, null or a scalar as undefined', () => {
    const object = { a: 1 };
    expect(recordOf(object)).toBe(object);
    expect([[1], null, 'x', 3, undefined].map(recordOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('numberOf: a finite number as it is; anything else as 0', () => {
    expect([12, -3, 0.5].map(numberOf)).toEqual([12, -3, 0.5]);
    expect(['12', Number.NaN, Number.POSITIVE_INFINITY, null, undefined, {}].map(numberOf)).toEqual([
      0, 0, 0, 0, 0, 0,
    ]);
  });
});
