import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../packages/sqlite/src/index.js';

const markdown = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'sql.md'), 'utf8');

describe('docs/sql.md', () => {
  it('states the schema version the code migrates to, and documents it', () => {
    expect(markdown).toContain(`\`PRAGMA user_version\` (${SCHEMA_VERSION} today;`);
    const documented = [...markdown.matchAll(/schema version (\d+)\)/g)].map((match) => Number(match[1]));
    expect(Math.max(...documented)).toBe(SCHEMA_VERSION);
  });
});
