// The instructions one cold pass over a dev corpus costs each build of StepLoopDetector, counted by
// callgrind under node's --predictable (one thread: TurboFan compiles and the collector works on the
// main thread, so they are counted with the pass, as a user's process pays them; the count does not
// depend on the machine's load). Each build's process is counted less one process with no pass (the
// first build's: loading the corpora, which every build's process does alike), and split by where
// it goes: TurboFan's compiler, the compiled code and V8's builtins, the collector, the rest of the
// runtime. A pass's process repeats within 0.01 % back to back (java), within 0.5-1 % across runs
// (likely the collector's heuristics, which read the clock); the process with no pass within 0.6 %, so it is
// counted once and the builds are compared on one subtraction: a difference under ~1 % is noise.
// Run: npx tsc -b && node scripts/bench-steps-instructions.mjs gemini|openhands|java OLD_DIST [NEW_DIST]
// Needs valgrind; java takes ~3 minutes a build, gemini-3-pro ~6.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [corpus, ...builds] = process.argv.slice(2);
if (!['gemini', 'openhands', 'java'].includes(corpus) || builds.length === 0) {
  console.error('usage: node scripts/bench-steps-instructions.mjs gemini|openhands|java OLD_DIST [NEW_DIST]');
  process.exit(2);
}
const onePass = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench/stepOnePass.mjs');
const folder = mkdtempSync(path.join(tmpdir(), 'loopguard-callgrind-'));

/** Where an instruction's function belongs, by its symbol as callgrind_annotate names it. */
function part(symbol) {
  if (symbol.includes('compiler::')) return 'compiler';
  if (/Scaveng|Heap::|heap::|MarkCompact|Marking|Sweeper|Evacuat|RememberedSet|SlotSet/.test(symbol))
    return 'collector';
  if (symbol.startsWith('???:0x') || symbol.includes('Builtins_')) return 'code';
  return 'runtime';
}

/** The instructions of one process (`corpus` or `none`) by part, and in all. */
function counted(dist, which) {
  const out = path.join(folder, 'callgrind.out');
  execFileSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--cache-sim=no',
      '--branch-sim=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--predictable',
      onePass,
      dist,
      which,
    ],
    { stdio: 'ignore' },
  );
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', out], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const parts = { all: 0, compiler: 0, code: 0, collector: 0, runtime: 0 };
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const instructions = Number(match[1].replaceAll(',', ''));
    if (match[2].includes('PROGRAM TOTALS')) parts.all = instructions;
    else parts[part(match[2])] += instructions;
  }
  return parts;
}

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (apt-get install valgrind)');
  process.exit(2);
}
const G = (n) => `${(n / 1e9).toFixed(3)} G`;
console.log(
  `| build (${corpus}, one cold pass) | the process | the pass | ratio | compiler | compiled code and builtins | collector | runtime |`,
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
let first;
try {
  const none = counted(builds[0], 'none');
  for (const dist of builds) {
    const pass = counted(dist, corpus);
    const less = (key) => pass[key] - none[key];
    first ??= less('all');
    console.log(
      `| ${dist} | ${pass.all.toLocaleString('en')} | ${G(less('all'))} | ${(less('all') / first).toFixed(3)} | ${G(less('compiler'))} | ${G(less('code'))} | ${G(less('collector'))} | ${G(less('runtime'))} |`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
