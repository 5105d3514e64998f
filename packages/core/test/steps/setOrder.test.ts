import { describe, expect, it } from 'vitest';
import { canonicalSetOrder } from '../../src/steps/setOrder.js';

describe('canonicalSetOrder', () => {
  it('prints the items of a set in one order, whatever order a run printed them in', () => {
    expect(canonicalSetOrder("got {'y', 'x'}")).toBe(canonicalSetOrder("got {'x', 'y'}"));
    expect(canonicalSetOrder('frozenset({b, c, a})')).toBe('frozenset({a, b, c})');
    expect(canonicalSetOrder("{Sym('y'), Sym('x')} != {x, y}")).toBe("{Sym('x'), Sym('y')} != {x, y}");
  });

  it('keeps tuples and quoted commas whole', () => {
    expect(canonicalSetOrder('{(3, 4), (1, 2)}')).toBe('{(1, 2), (3, 4)}');
    expect(canonicalSetOrder('{(1, 4), (3, 2)}')).not.toBe(canonicalSetOrder('{(1, 2), (3, 4)}'));
    expect(canonicalSetOrder(`{'b, c', 'a'}`)).toBe(`{'a', 'b, c'}`);
  });

  it('leaves dicts, a set that changed and text without sets as they are', () => {
    expect(canonicalSetOrder("{'b': 2, 'a': 1}")).toBe("{'b': 2, 'a': 1}");
    expect(canonicalSetOrder('{x, y}')).not.toBe(canonicalSetOrder('{x, z}'));
    expect(canonicalSetOrder('no sets here, {single}')).toBe('no sets here, {single}');
  });
});
