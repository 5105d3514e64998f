import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/exitCodes.js';
import { runCli } from '../src/main.js';
import { WorkerPool } from '../src/scan/workerPool.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

// Files read in parallel by worker threads: results in the files' order, a dying worker costs one
// file, and the built CLI (which runs the workers) reports what the in-process scan reports.

/**
 * A worker that answers `n` with `n * setup` after a delay that makes later items finish first (it
 * does not wait for one task to end before the next: the pool gives two at once); `3` kills it.
 */
function testWorker(): URL {
  const file = join(mkdtempSync(join(tmpdir(), 'loopguard-pool-')), 'worker.mjs');
  writeFileSync(
    file,
    `import { parentPort } from 'node:worker_threads';
let factor;
parentPort.on('message', (message) => {
  if ('setup' in message) return void (factor = message.setup);
  const { index, item } = message;
  if (item === 3) throw new Error('boom on 3');
  setTimeout(() => parentPort.postMessage({ index, result: item * factor }), (10 - item) * 5);
});
`,
  );
  return pathToFileURL(file);
}

/** Maps `items` on a pool of `size` test workers told to multiply by 10. */
async function mapTen<R>(
  items: number[],
  size: number,
  failed: (item: number, error: Error) => R,
  onResult: (result: number | R, index: number) => void,
): Promise<void> {
  const pool = WorkerPool.start(testWorker(), size);
  try {
    await pool.map<number, number | R>(items, { setup: 10, failed }, onResult);
  } finally {
    pool.close();
  }
}

describe('WorkerPool', () => {
  it('hands the results over in the items’ order, whatever order they finish in', async () => {
    const seen: Array<[number, number | string]> = [];
    await mapTen(
      [0, 1, 2, 4, 5, 6, 7],
      3,
      () => 'failed',
      (result, index) => seen.push([index, result]),
    );
    expect(seen).toEqual([
      [0, 0],
      [1, 10],
      [2, 20],
      [3, 40],
      [4, 50],
      [5, 60],
      [6, 70],
    ]);
  });

  it('reports the item whose worker died, and goes on with a new worker', async () => {
    const seen: Array<number | string> = [];
    await mapTen(
      [1, 2, 3, 4, 5],
      2,
      (item, error) => `${item}: ${error.message}`,
      (result) => seen.push(result),
    );
    expect(seen).toEqual([10, 20, '3: boom on 3', 40, 50]);
  });

  it('goes on when a worker started ahead died before it was given work (its script failed)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopguard-pool-')), 'broken.mjs');
    writeFileSync(file, "throw new Error('cannot load');\n");
    const pool = WorkerPool.start(pathToFileURL(file), 2);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the workers die meanwhile
    const seen: string[] = [];
    try {
      await pool.map<number, string>([1, 2], { setup: null, failed: (item) => `${item} failed` }, (r) =>
        seen.push(r),
      );
    } finally {
      pool.close();
    }
    expect(seen).toEqual(['1 failed', '2 failed']);
  });

  it('finishes at once with no items', async () => {
    const seen: unknown[] = [];
    await mapTen(
      [],
      2,
      () => 0,
      (r) => seen.push(r),
    );
    expect(seen).toEqual([]);
  });
});

describe('loopguard scan with worker threads (the built CLI)', () => {
  it('reports what the in-process scan reports, in the same order', async () => {
    const fixtures = fileURLToPath(SCAN_FIXTURES);
    const io = bufferedIo({ cwd: tmpdir() });
    expect(await runCli(['scan', fixtures, '--json'], io), io.err()).toBe(EXIT_CODES.ok);
    const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
    const built = await execa(process.execPath, [bin, 'scan', fixtures, '--json'], { cwd: tmpdir() });
    expect(JSON.parse(built.stdout)).toEqual(JSON.parse(io.out()));
  });

  it('writes the HTML page (the bundled action loads the page module from its own place)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-'));
    const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
    const built = await execa(
      process.execPath,
      [bin, 'scan', fileURLToPath(SCAN_FIXTURES), '--html', 'r.html'],
      {
        cwd: dir,
      },
    );
    expect(built.stdout).toContain(`HTML report: ${join(dir, 'r.html')}`);
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toContain('document.body.dataset.ready');
  });

  it("gives the workers the project's detector options (loopguard.config.yaml)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-workers-'));
    cpSync(fileURLToPath(SCAN_FIXTURES), join(dir, 'transcripts'), { recursive: true });
    const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
    const scanned = async () => {
      const run = await execa(process.execPath, [bin, 'scan', 'transcripts', '--json'], { cwd: dir });
      return JSON.parse(run.stdout).totals.sessionsWithLoops as number;
    };
    expect(await scanned()).toBe(3);
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'hook:\n  stopAfter: 100\n  exemptCommands: ["^ls "]\n',
    );
    expect(await scanned()).toBe(0);
  });
});
