/**
 * A run that makes progress, for every adapter's "left alone" test: new files with different
 * contents, and reads of what was written. The tools are `writeFile(path, text)` and `readFile(path)`.
 */
export const PROGRESS: ReadonlyArray<{ tool: 'readFile' | 'writeFile'; args: Record<string, string> }> = [
  {
    tool: 'writeFile',
    args: { path: 'notes.md', text: 'Plan: parse the config file, then validate its fields.' },
  },
  {
    tool: 'writeFile',
    args: {
      path: 'src/config.ts',
      text: 'export function parse(text: string) {\n  return JSON.parse(text);\n}\n',
    },
  },
  { tool: 'readFile', args: { path: 'notes.md' } },
  {
    tool: 'writeFile',
    args: {
      path: 'test/config.test.ts',
      text: "import { parse } from '../src/config';\ntest('parses', () => expect(parse('{}')).toEqual({}));\n",
    },
  },
  { tool: 'readFile', args: { path: 'src/config.ts' } },
];

/** The files {@link PROGRESS} writes. */
export const PROGRESS_FILES = ['notes.md', 'src/config.ts', 'test/config.test.ts'];
