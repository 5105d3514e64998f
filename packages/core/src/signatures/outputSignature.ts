import { type ErrorKind, type ErrorSignature, errorSignature } from './errorSignature.js';
import { normalizeVolatile } from './normalizeVolatile.js';
import { MAX_PARSED_LINE_LENGTH } from './parsedLines.js';

/** What an {@link OutputSignature} key was built from, most specific first. */
export type OutputSignatureBasis = 'infrastructure' | 'tests' | 'error' | 'edit' | 'text';

/** The identity of one iteration's output, for "same output repeated" loop detection. */
export interface OutputSignature {
  /** Failure, infrastructure or no error: see {@link ErrorKind}. */
  kind: ErrorKind;
  /** Equal for two outputs that say the same thing, e.g. `tests:src/a.test.ts > adds` or `edit:edited src/a.ts`. */
  key: string;
  /** What `key` was built from. */
  basis: OutputSignatureBasis;
  /** The error signature the key was derived from. */
  error: ErrorSignature;
}

/** Longest normalised text kept in a `text:` key. */
const TEXT_PREFIX_LENGTH = 200;

const EDIT =
  /\b(edit(?:ed|ing)?|modif(?:ied|y|ying)|updat(?:ed|e|ing)|patch(?:ed|ing)?|creat(?:ed|e|ing)|wr(?:ote|ite|iting)|delet(?:ed|e|ing)|remov(?:ed|e|ing)|renam(?:ed|e|ing))\b(?:\s+(?:the\s+)?file)?:?\s+[`'"]?((?:[\w@.~-]+[/\\])*[\w@~-][\w@.~-]*\.\w+)/gi;

const VERB_FAMILIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:edit|modif|updat|patch)/i, 'edited'],
  [/^(?:creat|wr)/i, 'wrote'],
  [/^(?:delet|remov)/i, 'deleted'],
  [/^renam/i, 'renamed'],
];

/**
 * The signature of an iteration's output. Two outputs repeat each other when their keys are equal:
 * the same infrastructure family; else the same failing tests; else the same error type and
 * location (or the same normalised error line when the location is unknown); else the same edited
 * files and verbs; else the same normalised, lower-cased prefix of the text. Volatile parts
 * (timestamps, durations, line numbers, addresses, temp paths, pids, colours) never matter.
 *
 * @example
 * outputSignature('Edited src/a.ts in 35ms').key; // 'edit:edited src/a.ts'
 * outputSignature('--- FAIL: TestAdd (0.01s)').key; // 'tests:TestAdd'
 */
export function outputSignature(output: string): OutputSignature {
  const error = errorSignature(output);
  if (error.kind === 'infrastructure')
    return { kind: error.kind, key: error.signature, basis: 'infrastructure', error };
  if (error.failingTests.length > 0) {
    return {
      kind: error.kind,
      key: `tests:${[...error.failingTests].sort().join(' | ')}`,
      basis: 'tests',
      error,
    };
  }
  if (error.kind === 'failure') {
    const key = error.location === null ? error.signature : `${error.errorType}@${error.location}`;
    return { kind: error.kind, key: `error:${key}`, basis: 'error', error };
  }
  const edits = editsOf(output);
  if (edits.length > 0) return { kind: error.kind, key: `edit:${edits.join(' | ')}`, basis: 'edit', error };
  // only a bounded prefix can reach the key, so only a bounded prefix is normalised
  const text = normalizeVolatile(output.slice(0, MAX_PARSED_LINE_LENGTH))
    .toLowerCase()
    .slice(0, TEXT_PREFIX_LENGTH);
  return { kind: error.kind, key: `text:${text}`, basis: 'text', error };
}

/** `verb file` for every edit reported in the output, sorted, without duplicates. */
function editsOf(output: string): string[] {
  const edits = new Set<string>();
  for (const match of output.matchAll(EDIT)) {
    const [, verb = '', file = ''] = match;
    const family = VERB_FAMILIES.find(([pattern]) => pattern.test(verb))?.[1] ?? verb.toLowerCase();
    edits.add(`${family} ${file}`);
  }
  return [...edits].sort();
}
