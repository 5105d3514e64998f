import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the server package', () => {
  it('depends on @loopguard/core only among loopguard packages, and on no database driver', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const runtime = Object.keys(manifest.dependencies);
    expect(runtime.filter((name) => name.startsWith('@loopguard/'))).toEqual(['@loopguard/core']);
    expect(runtime).not.toContain('better-sqlite3');
    expect(runtime).not.toContain('pg');
    for (const file of sources(join(root, 'src'))) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1] ?? '');
      const outside = imports.filter((name) => /^(@loopguard\/(?!core)|better-sqlite3|pg$)/.test(name));
      expect(outside, file).toEqual([]);
    }
  });
});
