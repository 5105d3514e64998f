// `loopguard scan` over 1 GB of transcripts against the floor, a bare read of the same files line by
// line with `JSON.parse` of each line (one thread), and against ccusage (`ccusage session --json
// --offline`, the pinned release the tests use, installed on demand into ~/.cache/loopguard-test), in
// the same run, each in a child process of its own (so that each peak RSS is its own). The
// transcripts are synthetic Claude Code sessions (the records 2.1.330 writes: replies with usage,
// tool results, attachments, api-request records; one session in five loops), written into a
// temporary Claude config folder (`projects/<project>/<session>.jsonl`) and deleted afterwards.
// Targets: scan ≤ 1× the floor's time (it reads files on every core), peak RSS ≤ 400 MB.
// Run: npx tsc -b && node scripts/bundle-hook.mjs && node scripts/bench-scan.mjs [megabytes=1024] [rounds=1]
// With LOOPGUARD_SCAN_BEFORE=<folder holding a built packages/ of an older tree> (see
// scan-report-check.mjs for how to make one), that build's scan runs too, in each round, after this one.
// This build's scan runs three ways each round: cold (an empty cache folder: what a first scan
// pays, the cache's writing included), warm (the same files again: nothing read), and warm after
// appending to a few files (a copy of their last lines: those files read again whole). Each waits
// until the files are over 2 s old (a file changed in the last 2 s is read but not remembered).
// (without the bundle, the scan's workers load the detector's modules one by one: see docs/benchmarks.md)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSyntheticSessions } from './lib/syntheticTranscripts.mjs';

const self = fileURLToPath(import.meta.url);
const [mode, dir, build, cacheHome] = process.argv.slice(2);
/** The ccusage release compared with (the one packages/cli/test/ccusage.ts pins). */
const CCUSAGE_VERSION = '20.0.24';

/** The `ccusage` command, installed on demand from the registry (the package installs its binary). */
function ensureCcusage() {
  const root = join(os.homedir(), '.cache', 'loopguard-test', `ccusage-${CCUSAGE_VERSION}`);
  const binary = join(root, 'node_modules', '.bin', 'ccusage');
  if (!existsSync(binary)) {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), '{ "private": true }\n');
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', `ccusage@${CCUSAGE_VERSION}`],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
  }
  return binary;
}

async function files(folder) {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

if (mode === 'floor' || mode === 'scan' || mode === 'ccusage') {
  // a child: one measured pass, then its time and peak RSS as JSON
  const start = performance.now();
  let lines = 0;
  if (mode === 'floor') {
    for (const file of await files(dir)) {
      const reader = createInterface({
        input: createReadStream(file, { encoding: 'utf8' }),
        crlfDelay: Infinity,
      });
      for await (const line of reader) {
        if (line !== '') JSON.parse(line);
        lines++;
      }
    }
  } else if (mode === 'ccusage') {
    const home = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-home-'));
    const out = execFileSync(ensureCcusage(), ['session', '--json', '--offline'], {
      env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: dir },
      maxBuffer: 1024 * 1024 * 1024,
      encoding: 'utf8',
    });
    rmSync(home, { recursive: true, force: true });
    lines = JSON.parse(out).session.length;
  } else {
    const root =
      build === undefined || build === '' ? new URL('..', import.meta.url) : pathToFileURL(`${build}/`);
    const { runCli } = await import(new URL('packages/cli/dist/main.js', root).href);
    let out = '';
    // the build's cache lives in `cacheHome` (none: no cache; a build older than the eighth round has none)
    const env = cacheHome === undefined || cacheHome === '' ? {} : { XDG_CACHE_HOME: cacheHome };
    const io = { stdout: (t) => (out += t), stderr: () => {}, env, cwd: os.tmpdir(), isTTY: false };
    const code = await runCli(['scan', dir, '--json'], io);
    if (code !== 0) throw new Error(`scan exited ${code}`);
    lines = JSON.parse(out).totals.sessions;
  }
  const ms = performance.now() - start;
  // ccusage's own memory is its binary's, not this wrapper's: not measured
  const usage = process.resourceUsage();
  const maxRssMb = mode === 'ccusage' ? null : usage.maxRSS / 1024;
  // CPU of every thread of this process (the scan's workers included; not ccusage's binary)
  const cpuMs = mode === 'ccusage' ? null : (usage.userCPUTime + usage.systemCPUTime) / 1000;
  console.log(JSON.stringify({ ms, maxRssMb, cpuMs, lines }));
  process.exit(0);
}

const megabytes = Number(process.argv[2] ?? 1024);
const rounds = Number(process.argv[3] ?? 1);
/** This build's cache folder in this round (a fresh one before each cold scan). */
let cacheFolder = '';
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-scan-'));
try {
  // write the transcripts: sessions of 150-450 calls in 20 projects, one in five looping
  const { bytes, sessions } = await writeSyntheticSessions(work, { megabytes, projects: 20, seed: 42 });
  console.log(`${sessions} sessions, ${(bytes / 1024 / 1024).toFixed(0)} MB in ${work}`);
  const before = process.env.LOOPGUARD_SCAN_BEFORE;
  const run = (which) => {
    // The build before scans cold every round: an empty cache folder of its own each time (a build
    // since the eighth round keeps a cache, else under the machine's home, read back in round 2).
    const beforeCache =
      which === 'scan before' ? mkdtempSync(join(os.tmpdir(), 'loopguard-bench-cache-before-')) : '';
    try {
      const args =
        which === 'scan before'
          ? ['scan', work, before, beforeCache]
          : which.startsWith('scan')
            ? ['scan', work, '', cacheFolder]
            : [which, work];
      const child = spawnSync(process.execPath, [self, ...args], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${which} failed: ${child.stderr}`);
      return JSON.parse(child.stdout);
    } finally {
      if (beforeCache !== '') rmSync(beforeCache, { recursive: true, force: true });
    }
  };
  ensureCcusage();
  const results = {
    floor: [],
    scan: [],
    'scan before': [],
    ccusage: [],
    'scan warm': [],
    'scan append': [],
  };
  const order = [
    'floor',
    'scan',
    ...(before === undefined ? [] : ['scan before']),
    'ccusage',
    'scan warm',
    'scan append',
  ];
  const transcripts = (await files(work)).filter((file) => file.endsWith('.jsonl')).sort();
  const settle = () => new Promise((done) => setTimeout(done, 2100));
  await settle();
  for (let round = 0; round < rounds; round++) {
    for (const which of order) {
      if (which === 'scan') {
        if (cacheFolder !== '') rmSync(cacheFolder, { recursive: true, force: true });
        cacheFolder = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-cache-'));
      }
      if (which === 'scan append') {
        // a few sessions go on: 5 files get a copy of their last 20 lines
        for (let i = 0; i < 5; i++) {
          const file = transcripts[Math.floor(((i + 0.5) * transcripts.length) / 5)];
          appendFileSync(file, `${readFileSync(file, 'utf8').trimEnd().split('\n').slice(-20).join('\n')}\n`);
        }
        await settle();
      }
      const result = run(which);
      results[which].push(result);
      console.log(
        `round ${round + 1} ${which.padEnd(11)} ${(result.ms / 1000).toFixed(2)} s${result.maxRssMb === null ? '' : `, CPU ${(result.cpuMs / 1000).toFixed(2)} s, peak RSS ${result.maxRssMb.toFixed(0)} MB`}, load ${os.loadavg()[0].toFixed(1)}`,
      );
    }
  }
  const best = (which) => Math.min(...results[which].map((r) => r.ms));
  for (const which of ['scan warm', 'scan append'])
    console.log(
      `${which} ${(best(which) / 1000).toFixed(2)} s: / floor ${(best(which) / best('floor')).toFixed(2)}×, ` +
        `/ ccusage ${(best(which) / best('ccusage')).toFixed(2)}×, / cold scan ${(best(which) / best('scan')).toFixed(2)}×`,
    );
  const peak = Math.max(...results.scan.map((r) => r.maxRssMb ?? 0));
  const ratio = best('scan') / best('floor');
  const toCcusage = best('scan') / best('ccusage');
  const mbps = (ms) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(0);
  console.log(
    `floor ${(best('floor') / 1000).toFixed(2)} s (${mbps(best('floor'))} MB/s); scan ${(best('scan') / 1000).toFixed(2)} s ` +
      `(${mbps(best('scan'))} MB/s); ccusage ${(best('ccusage') / 1000).toFixed(2)} s (${mbps(best('ccusage'))} MB/s)\n` +
      `scan / floor ${ratio.toFixed(2)}× (target ≤ 1×); scan / ccusage ${toCcusage.toFixed(2)}×; ` +
      `scan peak RSS ${peak.toFixed(0)} MB (target ≤ 400 MB)`,
  );
  if (before !== undefined)
    console.log(
      `scan before ${(best('scan before') / 1000).toFixed(2)} s: before / floor ${(best('scan before') / best('floor')).toFixed(2)}×, ` +
        `before / ccusage ${(best('scan before') / best('ccusage')).toFixed(2)}×`,
    );
  console.log(
    `machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, node ${process.version}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
  if (cacheFolder !== '') rmSync(cacheFolder, { recursive: true, force: true });
}
