import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const READERS = ['packages/postgres/src/PgStatusReader.ts', 'packages/sqlite/src/SqliteStatusReader.ts'];
/** As many lines as the `duplicates` tool pairs. */
const RUN = 6;

/** Every run of `RUN` consecutive non-blank lines of `path`, trimmed, joined. */
function runsOf(path: string): Set<string> {
  const lines = readFileSync(join(root, path), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const runs = new Set<string>();
  for (let i = 0; i + RUN <= lines.length; i++) runs.add(lines.slice(i, i + RUN).join('\n'));
  return runs;
}

describe('the two status readers', () => {
  it(`share no run of ${RUN} lines: constants, row mapping and cursors live once in core`, () => {
    const [pg, sqlite] = READERS.map(runsOf) as [Set<string>, Set<string>];
    expect([...pg].filter((run) => sqlite.has(run))).toEqual([]);
  });
});
