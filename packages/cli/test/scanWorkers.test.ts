import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { WorkerPool } from '../src/scan/workerPool.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

// Files read in parallel by worker threads: results in the files' order, a dying worker costs one
// file, and the built CLI (which runs the workers) reports what the in-process scan reports.

/** The pool's worker side as built (a worker thread cannot load the TypeScript sources). */
const SERVE_TASKS = new URL('../dist/scan/workerPool.js', import.meta.url).href;

/**
 * A worker that answers `n` with `n * setup.factor` after a delay that makes later items finish
 * first, and adds one to `setup.ticks` every 2 ms while it lives (so that a test sees whether any
 * worker is left) and to `setup.answered` for each item it answers. `3` throws mid-task; `33` ends the thread mid-task (`process.exit`, no error);
 * a setup of `fail` throws before the first task.
 */
function testWorker(): URL {
  const file = join(mkdtempSync(join(tmpdir(), 'loopguard-pool-')), 'worker.mjs');
  writeFileSync(
    file,
    `import { serveTasks } from ${JSON.stringify(SERVE_TASKS)};
serveTasks(async (setup) => {
  if (setup === 'fail') throw new Error('setup failed');
  if (setup.ticks !== undefined) {
    const ticks = new Int32Array(setup.ticks);
    setInterval(() => Atomics.add(ticks, 0, 1), 2);
  }
  return async (item) => {
    await new Promise((resolve) => setTimeout(resolve, (10 - (item % 10)) * 5));
    if (item === 3) throw new Error('boom on 3');
    if (item === 33) process.exit(7);
    if (setup.answered !== undefined) Atomics.add(new Int32Array(setup.answered), 0, 1);
    return item * setup.factor;
  };
});
`,
  );
  return pathToFileURL(file);
}

/** Maps `items` on a pool of `size` test workers told to multiply by 10; `ticks` counts their life. */
async function mapTen<R>(
  items: number[],
  size: number,
  failed: (item: number, error: Error) => R,
  onResult: (result: number | R, index: number) => void,
  ticks?: SharedArrayBuffer,
): Promise<void> {
  const pool = WorkerPool.start(testWorker(), size);
  try {
    await pool.map<number, number | R>(items, { setup: { factor: 10, ticks }, failed }, onResult);
  } finally {
    pool.close();
  }
}

/** Whether a test worker still lives: its ticks go on after `ms`. */
async function ticking(ticks: SharedArrayBuffer, ms = 60): Promise<boolean> {
  const count = new Int32Array(ticks);
  const before = Atomics.load(count, 0);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return Atomics.load(count, 0) !== before;
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

  it('reports the item whose worker died mid-task, goes on with a new worker, and leaves none behind', async () => {
    for (const [dies, why] of [
      [3, 'boom on 3'],
      [33, 'worker exited with code 7'],
    ] as const) {
      const ticks = new SharedArrayBuffer(4);
      const seen: Array<number | string> = [];
      await mapTen(
        [1, 2, dies, 4, 5, 6, 7, 8],
        2,
        (item, error) => `${item}: ${error.message}`,
        (result) => seen.push(result),
        ticks,
      );
      expect(seen).toEqual([10, 20, `${dies}: ${why}`, 40, 50, 60, 70, 80]);
      expect(Atomics.load(new Int32Array(ticks), 0)).toBeGreaterThan(0); // the workers did tick
      expect(await ticking(ticks)).toBe(false);
    }
  });

  it('goes on when a worker started ahead died before it was given work (its script failed)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopguard-pool-')), 'broken.mjs');
    writeFileSync(file, "throw new Error('cannot load');\n");
    const pool = WorkerPool.start(pathToFileURL(file), 2);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the workers die meanwhile
    const seen: string[] = [];
    try {
      await pool.map<number, string>([1, 2, 3], { setup: null, failed: (item) => `${item} failed` }, (r) =>
        seen.push(r),
      );
    } finally {
      pool.close();
    }
    expect(seen).toEqual(['1 failed', '2 failed', '3 failed']);
  });

  it('ends when every worker fails its setup: each failure costs one item, no worker starts forever', async () => {
    const seen: string[] = [];
    const pool = WorkerPool.start(testWorker(), 2);
    try {
      await pool.map<number, string>(
        [1, 2, 4, 5],
        { setup: 'fail', failed: (item, error) => `${item}: ${error.message}` },
        (r) => seen.push(r),
      );
    } finally {
      pool.close();
    }
    expect(seen).toEqual(['1: setup failed', '2: setup failed', '4: setup failed', '5: setup failed']);
  });

  it('lets the calling thread take tasks beside the workers, in the items’ order, without a worker waiting for it; its failure costs one item', async () => {
    const here: number[] = [];
    const seen: Array<number | string> = [];
    const ticks = new SharedArrayBuffer(4);
    const answered = new SharedArrayBuffer(4);
    const pool = WorkerPool.start(testWorker(), 1);
    const items = [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    try {
      await pool.map<number, number | string>(
        items,
        {
          setup: { factor: 10, ticks, answered },
          failed: (item, error) => `${item}: ${error.message}`,
          here: async (item) => {
            here.push(item);
            // the calling thread busy (blocked, no event loop) until the worker has answered
            // half the items: it can do so only by taking them itself
            const count = new Int32Array(answered);
            const until = Date.now() + 20_000;
            while (here.length === 1 && Atomics.load(count, 0) < items.length / 2 && Date.now() < until)
              Atomics.wait(count, 0, Atomics.load(count, 0), 50);
            if (item === 0) throw new Error('failed here');
            return item * 10;
          },
        },
        (result) => seen.push(result),
      );
    } finally {
      pool.close();
    }
    expect(seen).toEqual(items.map((item) => (item === 0 ? '0: failed here' : item * 10)));
    expect(here[0]).toBe(0);
    expect(Atomics.load(new Int32Array(answered), 0)).toBeGreaterThanOrEqual(items.length / 2);
    expect(here.length + Atomics.load(new Int32Array(answered), 0)).toBe(items.length);
    expect(await ticking(ticks)).toBe(false);
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

  it('reports bad input as the in-process scan does: one line, exit 2 (never "internal error", exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-usage-'));
    const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
    for (const args of [['nowhere'], ['--since', '2026-02-01', '--until', '2026-01-01']]) {
      const built = await execa(process.execPath, [bin, 'scan', ...args], { cwd: dir, reject: false });
      expect(built.exitCode, built.stderr).toBe(EXIT_CODES.usage);
      expect(built.stderr.trim().split('\n')).toHaveLength(1);
      expect(built.stderr).toMatch(
        /^loopguard: (nowhere: no such file or folder|--since 2026-02-01 is after --until 2026-01-01)$/,
      );
    }
  });

  it('starts its workers before it loads a transcript parser or the step detector (they load those meanwhile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-loads-'));
    // every module the command's own module loads, as node resolves it
    writeFileSync(
      join(dir, 'hooks.mjs'),
      'export async function resolve(specifier, context, next) { const found = await next(specifier, context); process.stderr.write(found.url + "\\n"); return found; }\n',
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      "import { register } from 'node:module'; register('./hooks.mjs', import.meta.url);\n",
    );
    const command = new URL('../dist/commands/scan.js', import.meta.url).href;
    const loaded = await execa(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(dir, 'register.mjs')).href,
        '--input-type=module',
        '-e',
        `await import('${command}')`,
      ],
      { cwd: dir },
    );
    const urls = loaded.stderr.split('\n');
    expect(urls).toContain(new URL('../dist/scan/scanWorkers.js', import.meta.url).href);
    expect(urls.filter((url) => url.includes('/core/') || /Parser|detectFormat|scanFile/.test(url))).toEqual(
      [],
    );
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

  it('gives the cold report with its cache, run after run (workers started ahead on the first, none after)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopguard-scan-cache-home-'));
    // the fixtures are settled (checked out, not changed since): remembered; the two new files are
    // too fresh to be remembered, so each run reads them on the workers it starts then (modified an
    // hour ahead, so that they stay fresh however long the runs take on a busy machine)
    const fresh = mkdtempSync(join(tmpdir(), 'loopguard-scan-fresh-'));
    const ahead = new Date(Date.now() + 3_600_000);
    for (const name of ['claude-2.1.330-looping.jsonl', 'codex-0.169.0-looping.jsonl']) {
      cpSync(join(fileURLToPath(SCAN_FIXTURES), name), join(fresh, name));
      utimesSync(join(fresh, name), ahead, ahead);
    }
    const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
    const paths = [fileURLToPath(SCAN_FIXTURES), fresh];
    const io = bufferedIo({ cwd: tmpdir() });
    expect(await runCli(['scan', ...paths, '--json'], io), io.err()).toBe(EXIT_CODES.ok);
    const env = { HOME: home, XDG_CACHE_HOME: '', LOOPGUARD_SCAN_CACHE: 'on' };
    for (const args of [paths, [fileURLToPath(SCAN_FIXTURES)], paths]) {
      const built = await execa(process.execPath, [bin, 'scan', ...args, '--json'], { cwd: tmpdir(), env });
      const cold = args.length === 2 ? io.out() : '';
      if (cold !== '') expect(built.stdout).toBe(io.out().trimEnd());
      else expect(JSON.parse(built.stdout).totals.files).toBe(6);
    }
    const cache = readFileSync(join(home, '.cache', 'loopguard', 'scan-cache'), 'utf8');
    const remembered = Object.keys(JSON.parse(cache.slice(cache.indexOf('\n') + 1)));
    expect(remembered.sort()).toEqual(
      readdirSync(fileURLToPath(SCAN_FIXTURES))
        .map((name) => join(fileURLToPath(SCAN_FIXTURES), name))
        .sort(),
    );
    rmSync(home, { recursive: true, force: true });
    rmSync(fresh, { recursive: true, force: true });
  });
});
