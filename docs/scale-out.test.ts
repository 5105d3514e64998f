import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThrowawayCluster } from '../packages/postgres/src/testing/index.js';

const docs = dirname(fileURLToPath(import.meta.url));
const root = dirname(docs);
const markdown = readFileSync(join(docs, 'scale-out.md'), 'utf8');
const examplePath = join(docs, 'examples', 'scale-out-worker.mjs');

const tmp = mkdtempSync(join(tmpdir(), 'loopguard-scale-out-'));
let cluster: ThrowawayCluster | undefined;
beforeAll(async () => {
  cluster = await ThrowawayCluster.start();
});
afterAll(async () => {
  await cluster?.destroy();
  rmSync(tmp, { recursive: true, force: true });
});

describe('docs/scale-out.md', () => {
  it('shows docs/examples/scale-out-worker.mjs verbatim', () => {
    const start = '<!-- example:docs/examples/scale-out-worker.mjs -->\n```js\n';
    const from = markdown.indexOf(start);
    expect(from, 'docs/scale-out.md has no example marker').toBeGreaterThanOrEqual(0);
    const to = markdown.indexOf('```\n<!-- /example -->', from);
    expect(markdown.slice(from + start.length, to)).toBe(readFileSync(examplePath, 'utf8'));
  });

  it('two workers on one PostgreSQL share T7: exactly one of them applies its recovery', async () => {
    mkdirSync(join(tmp, 'node_modules', '@loopguard'), { recursive: true });
    for (const name of ['core', 'orchestrator', 'postgres']) {
      symlinkSync(join(root, 'packages', name), join(tmp, 'node_modules', '@loopguard', name), 'dir');
    }
    copyFileSync(examplePath, join(tmp, 'scale-out-worker.mjs'));
    const env = { ...process.env, LOOPGUARD_PG: cluster?.connectionString ?? '' };
    const run = (worker: string) =>
      promisify(execFile)(process.execPath, ['scale-out-worker.mjs', worker], { cwd: tmp, env });

    const outputs = await Promise.all([run('worker-1'), run('worker-2')]);

    expect(outputs.map((o) => o.stderr)).toEqual(['', '']);
    const lines = outputs.flatMap((o) => o.stdout.trim().split('\n'));
    expect(lines.filter((l) => /: applied force_next to T7$/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => l.endsWith('recoveries of T7 in the shared database: 1')).sort()).toEqual([
      'worker-1: done; recoveries of T7 in the shared database: 1',
      'worker-2: done; recoveries of T7 in the shared database: 1',
    ]);
  });
});
