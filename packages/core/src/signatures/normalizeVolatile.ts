import { hasHexRun } from './hexRun.js';

/**
 * One replacement of {@link normalizeVolatile}, with cheap preconditions: `literals` (when set) are
 * substrings one of which every match contains, `digit` says every match contains a digit (and
 * `hexRun`, `beforeDigit` below). A pattern whose
 * precondition fails cannot match and is not run, so most texts take a few `includes` scans instead
 * of fifteen regex passes; the output is the same (the property test checks it against the plain
 * pass-by-pass form).
 */
interface VolatilePattern {
  pattern: RegExp;
  replacement: string;
  /** Substrings of which every match contains at least one. */
  literals?: readonly string[];
  /** Whether every match contains an ASCII digit. */
  digit: boolean;
  /** Whether every match contains a run of at least {@link HEX_RUN} hex digits. */
  hexRun?: boolean;
  /** A character that every match has right before a digit (`:` in `12:30` and `a.ts:12`). */
  beforeDigit?: string;
  /** Whether every match is also one of {@link RARE_NUMBERS} (tested once for the patterns that set it). */
  rare?: boolean;
}

/** Whether `text` has `char` right before an ASCII digit: one `indexOf` per occurrence of `char`. */
function hasBeforeDigit(text: string, char: string): boolean {
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next >= 48 && next <= 57) return true;
  }
  return false;
}

/** Whether `text` contains one of `literals`. */
function includesAny(text: string, literals: readonly string[]): boolean {
  for (let i = 0; i < literals.length; i++) if (text.includes(literals[i] as string)) return true;
  return false;
}

/** The shortest run of hex digits in a UUID or a long hash: a text without one skips both patterns. */
const HEX_RUN = 12;

/**
 * Replacements applied, in order, by {@link normalizeVolatile}. Order matters: timestamps before
 * durations and line numbers, temporary paths before line numbers (a temp path may end in `:12`).
 * Literals are looked for in the text as it stands before each pattern; the digit test is made once
 * on the input, which is exact because no replacement brings in a digit.
 */
const VOLATILE_PATTERNS: readonly VolatilePattern[] = [
  // ANSI colour and cursor sequences
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with the ESC control character
  { pattern: /\u001b\[[0-9;?]*[ -/]*[@-~]/g, replacement: '', literals: ['\u001b['], digit: false },
  // ISO-8601 and "2024-01-02 10:11:12" timestamps
  {
    pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g,
    replacement: '<time>',
    beforeDigit: ':',
    digit: true,
  },
  // clock times such as 10:11:12 or 10:11:12.345
  { pattern: /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, replacement: '<time>', beforeDigit: ':', digit: true },
  // temporary directories (POSIX, macOS, Windows)
  {
    pattern: /(?:\/private)?\/var\/folders\/[^\s'"`:)]+(?::\d+){0,2}/g,
    replacement: '<tmp>',
    literals: ['/var/folders/'],
    digit: false,
  },
  { pattern: /\/tmp\/[^\s'"`:)]+(?::\d+){0,2}/g, replacement: '<tmp>', literals: ['/tmp/'], digit: false },
  {
    pattern: /[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'"`:)]+(?::\d+){0,2}/g,
    replacement: '<tmp>',
    // Not from its first backslash: a JSON text has one before every escaped line end, and a search
    // for a literal is slow where its first character is frequent.
    literals: ['AppData\\Local\\Temp\\'],
    digit: false,
  },
  // UUIDs and hex addresses or long hashes
  {
    pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
    replacement: '<id>',
    literals: ['-'],
    digit: false,
    hexRun: true,
  },
  { pattern: /\b0x[0-9a-f]+\b/gi, replacement: '<hex>', literals: ['0x', '0X'], digit: true },
  {
    pattern: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi,
    replacement: '<hex>',
    digit: true,
    hexRun: true,
  },
  // process ids
  { pattern: /\b(pid|process)([\s:=#]+)\d+/gi, replacement: '$1$2<pid>', digit: true, rare: true },
  // durations: 12ms, 1.5 s, (0.00s), 3 seconds, 2min
  {
    pattern: /\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)\b/g,
    replacement: '<dur>',
    digit: true,
    rare: true,
  },
  // line and column numbers: file.ts:12:5, file.ts(12,5), "line 12"
  { pattern: /(\.[A-Za-z][\w]*):\d+(?::\d+)?/g, replacement: '$1:<n>', beforeDigit: ':', digit: true },
  { pattern: /(\.[A-Za-z][\w]*)\(\d+,\d+\)/g, replacement: '$1(<n>)', beforeDigit: '(', digit: true },
  { pattern: /\b(line)\s+\d+/gi, replacement: '$1 <n>', digit: true, rare: true },
];

const ANY_DIGIT = /\d/;
/**
 * Every match of the three patterns with no literal to look for (process ids, durations, `line 12`),
 * in one search: each alternative matches what its pattern does and more (case is ignored in all).
 * Texts with digits seldom hold any of them (about 1 in 100 of the corpora's actions), and one
 * search is cheaper than three.
 */
const RARE_NUMBERS =
  /\b(?:pid|process)[\s:=#]+\d|\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)\b|\bline\s+\d/i;
/** Whitespace that collapsing changes: a run of two or more, or one that is not a space (same result as `\s+`, fewer matches). */
const COLLAPSIBLE_SPACE = /\s{2,}|[^\S ]/g;

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
  // Replacements only remove digits, so a text without one never gains one.
  const hasDigit = ANY_DIGIT.test(text);
  // Looked for once, just before the first pattern that needs it: the replacements after it only
  // shorten hex runs (`<id>`, `<hex>` are not hex digits around their one `d` or `e`).
  let hexRun: boolean | undefined;
  // The text RARE_NUMBERS was last tested on, and its answer: tested again only if a replacement
  // changed the text since.
  let rareTested: string | undefined;
  let rare = false;
  // The same for a `:` before a digit (three patterns ask; JSON has a `:` after every key).
  let colonTested: string | undefined;
  let colon = false;
  let result = text;
  for (const pattern of VOLATILE_PATTERNS) {
    if (pattern.digit && !hasDigit) continue;
    if (pattern.rare === true) {
      if (rareTested !== result) {
        rare = RARE_NUMBERS.test(result);
        rareTested = result;
      }
      if (!rare) continue;
    }
    const literals = pattern.literals;
    if (literals !== undefined && !includesAny(result, literals)) continue;
    const beforeDigit = pattern.beforeDigit;
    if (beforeDigit === ':') {
      if (colonTested !== result) {
        colon = hasBeforeDigit(result, ':');
        colonTested = result;
      }
      if (!colon) continue;
    } else if (beforeDigit !== undefined && !hasBeforeDigit(result, beforeDigit)) continue;
    if (pattern.hexRun === true) {
      hexRun ??= hasHexRun(result, HEX_RUN);
      if (!hexRun) continue;
    }
    result = result.replace(pattern.pattern, pattern.replacement);
  }
  return result.replace(COLLAPSIBLE_SPACE, ' ').trim();
}

/**
 * Removes ANSI colour and cursor sequences only.
 * @example stripAnsi('\u001b[32mPASS\u001b[39m'); // 'PASS'
 */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with the ESC control character
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}
