import { describe, expect, it } from 'vitest';
import { samePath } from '../../src/steps/probes/probePaths.js';

describe('samePath', () => {
  it.each([
    ['/w/src/a.py', '/w/src/a.py', true],
    ['/w/src/a.py', 'src/a.py', true],
    ['src/a.py', '/w/src/a.py', true],
    ['/w/src/a.py', './src/a.py', true],
    ['/w/src/a.py', 'a.py', true],
    ['/w/src/xa.py', 'a.py', false],
    ['/w/src/a.py', 'b/a.py', false],
    ['a.py', 'b.py', false],
    ['/a.py', 'a.py', true],
    ['a.py', './a.py', true],
    ['./a.py', '/w/./a.py', true],
  ])('%s and %s: %s', (a, b, same) => {
    expect(samePath(a, b)).toBe(same);
    expect(samePath(b, a)).toBe(same);
  });
});
