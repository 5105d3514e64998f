import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/exitCodes.js';
import { runCli } from '../src/main.js';
import { mapInWorkers } from '../src/scan/workerPool.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

// Files read in parallel by worker threads: results in the files' order, a dying worker costs one
// file, and the built CLI (which runs the workers) reports what the in-process scan reports.

/** A worker that answers `n` with `n * 10` after a delay that makes later items finish first; `3` kills it. */
function testWorker(): URL {
  const file = join(mkdtempSync(join(tmpdir(), 'loopguard-pool-')), 'worker.mjs');
  writeFileSync(
    file,
    `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ index, item }) => {
  if (item === 3) throw new Error('boom on 3');
  setTimeout(() => parentPort.postMessage({ index, result: item * 10 }), (10 - item) * 5);
});
`,
  );
  return pathToFileURL(file);
}

describe('mapInWorkers', () => {
  it('hands the results over in the items’ order, whatever order they finish in', async () => {
    const seen: Array<[number, number | string]> = [];
    await mapInWorkers(
      [0, 1, 2, 4, 5, 6, 7],
      { script: testWorker(), workerData: null, size: 3, failed: () => 'failed' },
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
    await mapInWorkers(
      [1, 2, 3, 4, 5],
      {
        script: testWorker(),
        workerData: null,
        size: 2,
        failed: (item, error) => `${item}: ${error.message}`,
      },
      (result) => seen.push(result),
    );
    expect(seen).toEqual([10, 20, '3: boom on 3', 40, 50]);
  });

  it('finishes at once with no items', async () => {
    const seen: unknown[] = [];
    await mapInWorkers([], { script: testWorker(), workerData: null, size: 2, failed: () => 0 }, (r) =>
      seen.push(r),
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
