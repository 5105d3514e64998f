/**
 * Replacements applied, in order, by {@link normalizeVolatile}. Order matters: timestamps before
 * durations and line numbers, temporary paths before line numbers (a temp path may end in `:12`).
 */
const VOLATILE_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // ANSI colour and cursor sequences
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with the ESC control character
  [/\u001b\[[0-9;?]*[ -/]*[@-~]/g, ''],
  // ISO-8601 and "2024-01-02 10:11:12" timestamps
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  // clock times such as 10:11:12 or 10:11:12.345
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  // temporary directories (POSIX, macOS, Windows)
  [/(?:\/private)?\/var\/folders\/[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/\/tmp\/[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  // UUIDs and hex addresses or long hashes
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '<hex>'],
  // process ids
  [/\b(pid|process)([\s:=#]+)\d+/gi, '$1$2<pid>'],
  // durations: 12ms, 1.5 s, (0.00s), 3 seconds, 2min
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)\b/g, '<dur>'],
  // line and column numbers: file.ts:12:5, file.ts(12,5), "line 12"
  [/(\.[A-Za-z][\w]*):\d+(?::\d+)?/g, '$1:<n>'],
  [/(\.[A-Za-z][\w]*)\(\d+,\d+\)/g, '$1(<n>)'],
  [/\b(line)\s+\d+/gi, '$1 <n>'],
];

/**
 * Removes the parts of tool output that change from run to run without meaning anything: ANSI
 * colours, timestamps, durations, line and column numbers, hex addresses, UUIDs, temporary paths
 * and process ids. Whitespace runs collapse to one space and the result is trimmed.
 *
 * @example
 * normalizeVolatile('\u001b[31mError\u001b[39m at /tmp/x1/a.ts:12:5 (35ms)');
 * // 'Error at <tmp> (<dur>)'
 */
export function normalizeVolatile(text: string): string {
  let result = text;
  for (const [pattern, replacement] of VOLATILE_PATTERNS) result = result.replace(pattern, replacement);
  return result.replace(/\s+/g, ' ').trim();
}

/**
 * Removes ANSI colour and cursor sequences only.
 * @example stripAnsi('\u001b[32mPASS\u001b[39m'); // 'PASS'
 */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with the ESC control character
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}
