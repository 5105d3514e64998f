import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const docs = dirname(fileURLToPath(import.meta.url));
const root = dirname(docs);
const markdown = readFileSync(join(docs, 'embedding.md'), 'utf8');
const examplePath = join(docs, 'examples', 'embedding.mjs');

/** The fenced block between `<!-- kind:file -->` and `<!-- /kind -->`. */
function block(kind: 'example' | 'output', file: string): string {
  const start = `<!-- ${kind}:${file} -->\n`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(`<!-- /${kind} -->`, from);
  expect(from, `docs/embedding.md has no ${start.trim()} marker`).toBeGreaterThanOrEqual(0);
  const fenced = markdown.slice(from + start.length, to);
  const match = /^```[a-z]*\n([\s\S]*)```\n$/.exec(fenced);
  expect(match, `the ${kind} block of ${file} is not one fenced code block`).not.toBeNull();
  return match?.[1] ?? '';
}

const tmp = mkdtempSync(join(tmpdir(), 'loopguard-embedding-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('docs/embedding.md', () => {
  it('shows docs/examples/embedding.mjs verbatim', () => {
    expect(block('example', 'docs/examples/embedding.mjs')).toBe(readFileSync(examplePath, 'utf8'));
  });

  it('the example runs in a fresh directory of a project that depends on the packages, printing the documented output', async () => {
    // a project with the three packages installed (linked to the built workspace packages)
    mkdirSync(join(tmp, 'node_modules', '@loopguard'), { recursive: true });
    for (const name of ['core', 'orchestrator', 'sqlite']) {
      symlinkSync(join(root, 'packages', name), join(tmp, 'node_modules', '@loopguard', name), 'dir');
    }
    copyFileSync(examplePath, join(tmp, 'embedding.mjs'));

    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['embedding.mjs'], { cwd: tmp });

    expect(stderr).toBe('');
    expect(stdout).toBe(block('output', 'docs/examples/embedding.mjs'));
    expect(existsSync(join(tmp, 'loopguard.db'))).toBe(true);
  });
});
