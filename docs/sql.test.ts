import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openLoopGuardDatabase, SCHEMA_VERSION } from '../packages/sqlite/src/index.js';

const markdown = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'sql.md'), 'utf8');

describe('docs/sql.md', () => {
  it('states the schema version the code migrates to, and documents it', () => {
    expect(markdown).toContain(`\`PRAGMA user_version\` (${SCHEMA_VERSION} today;`);
    const documented = [...markdown.matchAll(/schema version (\d+)\)/g)].map((match) => Number(match[1]));
    expect(Math.max(...documented)).toBe(SCHEMA_VERSION);
  });

  const queries = [...markdown.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  it('has SQL examples', () => expect(queries.length).toBeGreaterThan(10));
  it.each(queries.map((sql, index) => [index + 1, sql] as const))(
    'runs its SQL example %i on a database of the current schema',
    (_, sql) => {
      const { db, close } = openLoopGuardDatabase(':memory:');
      try {
        // every table, view and column it names must exist; what it writes is rolled back
        expect(() =>
          db.transaction(() => {
            db.exec(sql);
            throw new Rollback();
          })(),
        ).toThrow(Rollback);
      } finally {
        close();
      }
    },
  );
});

/** Thrown to roll an example's transaction back. */
class Rollback extends Error {}
