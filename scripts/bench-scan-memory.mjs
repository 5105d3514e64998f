// Scan's memory against a file's size (issue 32, item 5): `loopguard scan FILE --json` on synthetic
// files of SMALL and LARGE MB of three shapes, its peak RSS (maxRSS) and wall time:
// - a Claude Code transcript whose tool calls never get a result (one id → name entry per call
//   unless the map is bounded);
// - a Gemini CLI stream-json whose model reply comes as `delta` pieces of one message;
// - a control: a Claude Code transcript whose calls all get their results.
// The files are written to a temporary folder and removed after.
// Run: pnpm run build && node scripts/bench-scan-memory.mjs [SMALL=50] [LARGE=500]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SMALL = Number(process.argv[2] ?? 50);
const LARGE = Number(process.argv[3] ?? 500);
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-scan-memory-'));
const rss = join(work, 'rss.cjs');
writeFileSync(
  rss,
  "process.on('exit', () => process.stderr.write('maxRSS ' + process.resourceUsage().maxRSS + '\\n'));\n",
);

const claudeRecord = (type, n, message) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    cwd: '/repo',
    sessionId: 'memory',
    version: '2.1.330',
    type,
    uuid: `u${n}`,
    timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    message,
  });
const call = (n) =>
  claudeRecord('assistant', n, {
    id: `msg_${n}`,
    role: 'assistant',
    content: [
      { type: 'tool_use', id: `toolu_${n}`, name: 'Read', input: { file_path: `/repo/src/file${n}.ts` } },
    ],
    usage: { input_tokens: 10, output_tokens: 5 },
  });
const result = (n) =>
  claudeRecord('user', n, {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `line ${n} of a file\n`.repeat(3) }],
  });
const SHAPES = {
  'Claude transcript, calls never answered': (n) => `${call(n)}\n`,
  'Gemini stream-json, one message in delta pieces': (n) =>
    n === 0
      ? `{"type":"init","session_id":"memory","model":"gemini-2.5-pro"}\n`
      : `{"type":"message","role":"assistant","content":"piece ${n} of one very long reply that never ends. ","delta":true}\n`,
  'Claude transcript, calls answered (control)': (n) => `${call(n)}\n${result(n)}\n`,
};

/** Writes `make(n)` lines until the file holds `mb` MB. */
async function write(file, mb, make) {
  const out = createWriteStream(file);
  let size = 0;
  for (let n = 0; size < mb * 1e6; n++) {
    const line = make(n);
    size += line.length;
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve) => out.end(resolve));
}

function scan(file) {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', rss, bin, 'scan', file, '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (run.status !== 0) throw new Error(`scan exit ${run.status}: ${run.stderr}`);
  const steps = JSON.parse(run.stdout).sessions[0]?.steps;
  return {
    s: Number(process.hrtime.bigint() - start) / 1e9,
    rssMB: Number(/maxRSS (\d+)/.exec(run.stderr)?.[1]) / 1024,
    steps,
    stderr: run.stderr.replace(/maxRSS \d+\n/, '').trim(),
  };
}

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}\n`);
console.log(`| file | ${SMALL} MB: peak RSS MB (s) | ${LARGE} MB: peak RSS MB (s) | ratio |`);
console.log('| --- | --- | --- | --- |');
for (const [name, make] of Object.entries(SHAPES)) {
  const cells = [];
  for (const mb of [SMALL, LARGE]) {
    const file = join(work, `${mb}.jsonl`);
    await write(file, mb, make);
    const measured = scan(file);
    if (measured.stderr !== '') console.error(`${name}, ${mb} MB: ${measured.stderr}`);
    cells.push({ ...measured, mb: statSync(file).size / 1e6 });
    rmSync(file);
  }
  const [small, large] = cells;
  console.log(
    `| ${name} | ${small.rssMB.toFixed(0)} (${small.s.toFixed(1)}) | ${large.rssMB.toFixed(0)} (${large.s.toFixed(1)}) | ${(large.rssMB / small.rssMB).toFixed(2)}× |`,
  );
}
rmSync(work, { recursive: true, force: true });
