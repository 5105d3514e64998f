/** Extractors in priority order: the first one that finds names wins, so one runner's names are not doubled. */
const TEST_NAME_EXTRACTORS: readonly RegExp[] = [
  // go test: --- FAIL: TestAdd (0.00s)
  /^\s*--- FAIL:\s+(\S+)/,
  // pytest: FAILED tests/test_math.py::test_add - assert 3 == 4
  /^FAILED\s+(\S+::\S+)/,
  // vitest: FAIL  src/math.test.ts > add > adds two numbers
  /^\s*FAIL\s+(\S+\s+>\s+.*\S)/,
  // jest: ● add › adds two numbers
  /^\s*●\s+(?=\S)(?!Test suite failed to run)(.*\S)/,
  // vitest/jest list reporters: × adds two numbers 5ms, ✕ adds two numbers (5 ms)
  /^\s*[×✕✗]\s+(\S(?:.*\S)?)/,
];
const LIST_REPORTER = TEST_NAME_EXTRACTORS[TEST_NAME_EXTRACTORS.length - 1];

/** The duration a list reporter prints after a test name: ` 5ms`, ` (5 ms)`; starts only where a whitespace run starts. */
const TRAILING_DURATION = /(?<!\s)\s+\(?\d+(?:\.\d+)?\s?m?s\)?$/;

/**
 * Names of the failing tests in the output of vitest, jest, pytest or go test, in order of
 * appearance without duplicates. `lines` must be free of ANSI sequences. Every pattern runs in time
 * linear in the line's length.
 *
 * @example
 * failingTestNames(['--- FAIL: TestAdd (0.00s)', 'FAIL']); // ['TestAdd']
 */
export function failingTestNames(lines: readonly string[]): string[] {
  for (const pattern of TEST_NAME_EXTRACTORS) {
    const names = new Set<string>();
    for (const line of lines) {
      const match = pattern.exec(line)?.[1];
      const name = pattern === LIST_REPORTER ? match?.replace(TRAILING_DURATION, '') : match;
      if (name !== undefined && !name.startsWith('Console')) names.add(name);
    }
    if (names.size > 0) return [...names];
  }
  return [];
}
