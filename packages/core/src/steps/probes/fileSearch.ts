import { shellSegments } from '../actions/shellSegments.js';

/** A search of one file for what the agent expects it to hold: `grep PATTERN FILE` ending a command line. */
export interface FileSearch {
  /** The file searched, by its name (`example.svg`). */
  file: string;
  /** The pattern, as typed (without its quotes). */
  pattern: string;
}

/** A word of a shell segment: quoted text (its quotes taken off) or a run of non-blanks. */
const WORD = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
/** grep's options that take the next word as their value (`-A 5`, `-m 1`). */
const VALUE_OPTIONS = new Set(['-A', '-B', '-C', '-m', '--max-count', '-f', '--file']);
/** Options that search more than one file (`-r`, `-R`, `-rn`, `--recursive`, `--include`). */
const MANY_FILES = /^-(?:[a-zA-Z]*[rR][a-zA-Z]*|-recursive|-include.*|-dereference-recursive)$/;

/**
 * The search of one file a command line ends with: `grep [options] PATTERN FILE`, or `cat FILE |
 * grep [options] PATTERN`, as its last segment (what it prints is the line's output, and its exit
 * status the line's). A recursive search, several files, a glob, a pattern from a file or given by
 * `-e` are not one expectation of one file: `undefined`.
 *
 * @example searchOf("cd /w && python repro.py && grep -A 2 'annotation_[12]' example.svg"); // { file: 'example.svg', pattern: 'annotation_[12]' }
 */
export function searchOf(command: string): FileSearch | undefined {
  if (!command.includes('grep')) return undefined;
  const segments = shellSegments(command);
  const words = wordsOf(segments.at(-1) ?? '');
  if (words[0] !== 'grep') return undefined;
  const args: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '-e' || word === '--regexp' || MANY_FILES.test(word)) return undefined;
    if (VALUE_OPTIONS.has(word)) i++;
    else if (!word.startsWith('-')) args.push(word);
  }
  const [pattern, ...files] = args;
  if (pattern === undefined || pattern === '') return undefined;
  if (files.length === 0 && segments.length > 1) {
    const source = wordsOf(segments.at(-2) as string);
    if (source.length === 2 && source[0] === 'cat') files.push(source[1] as string);
  }
  const file = files[0];
  if (files.length !== 1 || file === undefined || /[*?[]/.test(file)) return undefined;
  return { file: file.slice(file.lastIndexOf('/') + 1), pattern };
}

/**
 * `searchOf(command)`, read when asked (once); `undefined` when the line cannot end with grep.
 * Most command lines never need it: only a failing one, or any while a file's count stands.
 */
export function searchReader(command: string): (() => FileSearch | undefined) | undefined {
  if (!command.includes('grep')) return undefined;
  let read = false;
  let search: FileSearch | undefined;
  return () => {
    if (!read) search = searchOf(command);
    read = true;
    return search;
  };
}

function wordsOf(segment: string): string[] {
  const words: string[] = [];
  WORD.lastIndex = 0;
  for (let match = WORD.exec(segment); match !== null; match = WORD.exec(segment))
    words.push(match[1] ?? match[2] ?? (match[3] as string));
  return words;
}
