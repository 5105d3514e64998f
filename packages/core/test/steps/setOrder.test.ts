import { describe, expect, it } from 'vitest';
import { canonicalSetOrder } from '../../src/steps/probes/setOrder.js';

describe('canonicalSetOrder', () => {
  it('prints the items of a set in one order, whatever order a run printed them in', () => {
    expect(canonicalSetOrder("got {'y', 'x'}")).toBe(canonicalSetOrder("got {'x', 'y'}"));
    expect(canonicalSetOrder('frozenset({b, c, a})')).toBe('frozenset({a, b, c})');
    expect(canonicalSetOrder("{Sym('y'), Sym('x')} != {x, y}")).toBe("{Sym('x'), Sym('y')} != {x, y}");
  });

  it('keeps tuples and quoted commas whole', () => {
    expect(canonicalSetOrder("{('b', 2), ('a', 1)}")).toBe("{('a', 1), ('b', 2)}");
    expect(canonicalSetOrder("{('a', 2), ('b', 1)}")).not.toBe(canonicalSetOrder("{('a', 1), ('b', 2)}"));
    expect(canonicalSetOrder(`{'b, c', 'a'}`)).toBe(`{'a', 'b, c'}`);
  });

  it("leaves a set of numbers as it is: numbers hash to themselves, their order is the program's", () => {
    expect(canonicalSetOrder('{3, 1, 2}')).toBe('{3, 1, 2}');
    expect(canonicalSetOrder('{-1.5, 2e3, 0}')).toBe('{-1.5, 2e3, 0}');
  });

  it('leaves dicts, a set that changed and text without sets as they are', () => {
    expect(canonicalSetOrder("{'b': 2, 'a': 1}")).toBe("{'b': 2, 'a': 1}");
    expect(canonicalSetOrder('{x, y}')).not.toBe(canonicalSetOrder('{x, z}'));
    expect(canonicalSetOrder('no sets here, {single}')).toBe('no sets here, {single}');
  });
});
