/** Extractors in priority order: the first one that finds names wins, so one runner's names are not doubled. */
const TEST_NAME_EXTRACTORS: readonly RegExp[] = [
  // go test: --- FAIL: TestAdd (0.00s)
  /^\s*--- FAIL:\s+(\S+)/,
  // pytest: FAILED tests/test_math.py::test_add - assert 3 == 4
  /^FAILED\s+(\S+::\S+)/,
  // vitest: FAIL  src/math.test.ts > add > adds two numbers
  /^\s*FAIL\s+(\S+\s+>\s+.+?)\s*$/,
  // jest: ● add › adds two numbers
  /^\s*●\s+(?!Test suite failed to run)(.+?)\s*$/,
  // vitest/jest list reporters: × adds two numbers 5ms, ✕ adds two numbers (5 ms)
  /^\s*[×✕✗]\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s?m?s\)?)?\s*$/,
];

/**
 * Names of the failing tests in the output of vitest, jest, pytest or go test, in order of
 * appearance without duplicates. `lines` must be free of ANSI sequences.
 *
 * @example
 * failingTestNames(['--- FAIL: TestAdd (0.00s)', 'FAIL']); // ['TestAdd']
 */
export function failingTestNames(lines: readonly string[]): string[] {
  for (const pattern of TEST_NAME_EXTRACTORS) {
    const names = new Set<string>();
    for (const line of lines) {
      const name = pattern.exec(line)?.[1];
      if (name !== undefined && !name.startsWith('Console')) names.add(name);
    }
    if (names.size > 0) return [...names];
  }
  return [];
}
