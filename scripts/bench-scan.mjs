// `loopguard scan` over 1 GB of transcripts against the floor: a bare read of the same files line by
// line with `JSON.parse` of each line, in the same run (each in a child process of its own, so that
// each peak RSS is its own). The transcripts are synthetic Claude Code sessions (the records 2.1.330
// writes: replies with usage, tool results, attachments, api-request records; one session in five
// loops), written into a temporary folder and deleted afterwards.
// Targets: scan ≤ 3× the floor's time, peak RSS ≤ 400 MB.
// Run: npx tsc -b && node scripts/bench-scan.mjs [megabytes=1024] [rounds=1]
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './bench/injectLoops.mjs';
import { sessionLines } from './lib/syntheticTranscripts.mjs';

const self = fileURLToPath(import.meta.url);
const [mode, dir] = process.argv.slice(2);

async function files(folder) {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

if (mode === 'floor' || mode === 'scan') {
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
  } else {
    const { runCli } = await import(new URL('../packages/cli/dist/main.js', import.meta.url).href);
    let out = '';
    const io = { stdout: (t) => (out += t), stderr: () => {}, env: {}, cwd: os.tmpdir(), isTTY: false };
    const code = await runCli(['scan', dir, '--json'], io);
    if (code !== 0) throw new Error(`scan exited ${code}`);
    lines = JSON.parse(out).totals.sessions;
  }
  const ms = performance.now() - start;
  console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, lines }));
  process.exit(0);
}

const megabytes = Number(process.argv[2] ?? 1024);
const rounds = Number(process.argv[3] ?? 1);
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-scan-'));
try {
  // write the transcripts: sessions of 150-450 calls in 20 projects, one in five looping
  const next = seededRandom(42);
  let bytes = 0;
  let sessions = 0;
  const target = megabytes * 1024 * 1024;
  while (bytes < target) {
    const project = `/home/dev/project-${sessions % 20}`;
    const folder = join(work, project.replaceAll('/', '-'));
    mkdirSync(folder, { recursive: true });
    const loops = next() < 0.2;
    const { sessionId, lines } = sessionLines({
      cwd: project,
      start: Date.parse('2026-10-01T00:00:00Z') + sessions * 3_600_000,
      calls: 150 + Math.floor(next() * 300),
      loopAt: loops ? 40 : -1,
      loopLength: loops ? 10 + Math.floor(next() * 40) : 0,
    });
    const file = join(folder, `${sessionId}.jsonl`);
    const out = createWriteStream(file);
    for (const line of lines) out.write(`${line}\n`);
    await new Promise((resolve) => out.end(resolve));
    bytes += statSync(file).size;
    sessions++;
  }
  console.log(`${sessions} sessions, ${(bytes / 1024 / 1024).toFixed(0)} MB in ${work}`);
  const run = (which) => {
    const child = spawnSync(process.execPath, [self, which, work], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${which} failed: ${child.stderr}`);
    return JSON.parse(child.stdout);
  };
  const results = { floor: [], scan: [] };
  for (let round = 0; round < rounds; round++) {
    for (const which of ['floor', 'scan']) {
      const result = run(which);
      results[which].push(result);
      console.log(
        `round ${round + 1} ${which.padEnd(5)} ${(result.ms / 1000).toFixed(1)} s, peak RSS ${result.maxRssMb.toFixed(0)} MB`,
      );
    }
  }
  const best = (which) => Math.min(...results[which].map((r) => r.ms));
  const peak = Math.max(...results.scan.map((r) => r.maxRssMb));
  const ratio = best('scan') / best('floor');
  const mbps = (ms) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(0);
  console.log(
    `floor ${(best('floor') / 1000).toFixed(1)} s (${mbps(best('floor'))} MB/s); scan ${(best('scan') / 1000).toFixed(1)} s ` +
      `(${mbps(best('scan'))} MB/s); ratio ${ratio.toFixed(2)}× (target ≤ 3×); scan peak RSS ${peak.toFixed(0)} MB (target ≤ 400 MB)`,
  );
  console.log(
    `machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, node ${process.version}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
