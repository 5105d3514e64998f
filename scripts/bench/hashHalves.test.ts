import { describe, expect, it } from 'vitest';
// @ts-expect-error: a bench module in plain JavaScript, without types
import { hashHalf, hashHalfOf } from './labelledLoops.mjs';

// The halves nobody tuned on (delay37r): cut by the task id, never by label or position.
const run = (model: string, id: string, at: number) => ({ key: `${model}/${id}`, model, id, at });
const tasks = Array.from({ length: 40 }, (_, i) => `repo__repo-${1000 + i}`);
const corpus = {
  dir: 'x',
  runs: tasks.flatMap((id, i) => [run('m1', id, 2 * i), run('m2', id, 2 * i + 1)]),
  loops: tasks.map((id) => ({ model: 'm1', id, certainAt: 5 })),
  hardNegatives: tasks.map((id) => ({ model: 'm2', id, start: 1, end: 2 })),
};

describe('hashHalfOf', () => {
  it('cuts a corpus into two disjoint halves that cover it, with their loops and hard negatives', () => {
    const a = hashHalfOf(corpus, 'A');
    const b = hashHalfOf(corpus, 'B');
    expect(a.runs.length).toBeGreaterThan(0);
    expect(b.runs.length).toBeGreaterThan(0);
    expect(a.runs.length + b.runs.length).toBe(corpus.runs.length);
    expect(a.loops.length + b.loops.length).toBe(corpus.loops.length);
    for (const loop of a.loops) expect(a.runs.some((r: { id: string }) => r.id === loop.id)).toBe(true);
    for (const neg of b.hardNegatives) expect(b.runs.some((r: { id: string }) => r.id === neg.id)).toBe(true);
  });

  it("puts a task's runs by several models in one half, whatever their position", () => {
    for (const half of ['A', 'B']) {
      const { runs } = hashHalfOf(corpus, half);
      const ids = new Set(runs.map((r: { id: string }) => r.id));
      expect(runs.length).toBe(2 * ids.size);
    }
    // not the position halves: some task's runs sit at an even and an odd position in one half
    const a = hashHalfOf(corpus, 'A');
    expect(new Set(a.runs.map((r: { at: number }) => r.at % 2)).size).toBe(2);
  });

  it('is the cut benchmarks.md reports: the same ids in the same halves in every run', () => {
    // the first byte of the id's SHA-256, even or odd (delay37r's figures were taken with this cut)
    expect(
      ['django__django-11119', 'sympy__sympy-22080', 'astropy__astropy-7166', 'sphinx-doc__sphinx-9281'].map(
        hashHalf,
      ),
    ).toEqual(['B', 'B', 'A', 'A']);
  });

  it('names a bad half', () => {
    expect(() => hashHalfOf(corpus, 'even')).toThrow('half must be A or B, got even');
  });
});
