// Benchmark of the parsers of agent output on adversarial input: decide, errorSignature and
// checkSafetyGuards on 1 MB, against the patterns they replaced (run in the same process).
// Run: pnpm run bench:parsing   (or: npx tsc -b && node scripts/bench-parsing.mjs)
import os from 'node:os';
import { errorSignature } from '../packages/core/dist/entries/breaker.js';
import { decide } from '../packages/core/dist/entries/iteration.js';
import { checkSafetyGuards } from '../packages/core/dist/entries/seeds.js';

const MB = 1 << 20;

/** Outputs shaped to make backtracking patterns slow, each cut to `size` characters. */
const SHAPES = {
  'Error: a.a.a.… (one line)': (n) => fill('Error: ', 'a.', n),
  'Error: a/a/a/… (one line)': (n) => fill('Error: ', 'a/', n),
  'FAIL + Expected: a.a.… (one line)': (n) => fill('FAIL src/a.test.ts\nExpected: ', 'a.', n),
  '--- FAIL: aaaa… (one line)': (n) => fill('--- FAIL: ', 'a', n),
  'Error: A.A.A.… (one line)': (n) => fill('Error: ', 'A.', n),
  'expected expected … (one line)': (n) => fill('FAIL x\n', 'expected ', n),
  'x = = = … (one line)': (n) => fill('FAIL x\n', '= ', n),
  'Error + spaces (one line)': (n) => `${fill('AssertionError: ', ' ', n - 1)}x`,
  'Error: a.ts:1 (short lines)': (n) => fill('', 'Error: at src/a.ts:1:2\n', n),
  'blank lines': (n) => fill('Error: x\n', '\n', n),
};

function fill(prefix, unit, size) {
  return (prefix + unit.repeat(Math.ceil(size / unit.length))).slice(0, size);
}

/** The patterns the parsers used before (copied from the replaced code, for comparison only). */
const OLD = {
  testLocation:
    /((?:[A-Za-z]:[/\\]|\/)?(?:[\w@.\-~]+[/\\])*[\w@\-~][\w@.\-~]*\.(?:[cm]?[jt]sx?|py|go|rs|java|rb|php|cs))(?::|\()(\d+)/,
  sourcePath:
    /(?:[A-Za-z]:[/\\]|\/)?(?:[\w@.\-~]+[/\\])*[\w@\-~][\w@.\-~]*\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|cpp|cc|c|hpp|h|swift|vue|svelte)(?=[:(),\s"'\]]|$)/,
  typedError: /\b((?:[a-z_]\w*\.)*[A-Z][\w.]*(?:Error|Exception))\b/,
  goWant: /(?:\bgot:?|=)\s*(.+?),\s*want:?\s+(.+?)\s*$/m,
  expectSentence: /\bexpected (.+?) to (?:be|equal) (.+?)(?:\s+\/\/.*)?$/im,
};

function time(fn) {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const failing = (output) => ({
  task_id: 'T1',
  current_iteration: 3,
  max_iterations: 3,
  test_result: { status: 'fail', output },
  review_result: { status: 'reject', feedback: output },
});

const FUNCTIONS = {
  decide: (s) => decide(failing(s)),
  errorSignature: (s) => errorSignature(s),
  'checkSafetyGuards (3 outputs)': (s) => checkSafetyGuards(0, Date.now(), 0, [s, s, s]),
};

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
console.log(`node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'})`);
console.log(`\n1 MB outputs, median of ${ROUNDS} runs, ms:`);
console.log(`| shape | ${Object.keys(FUNCTIONS).join(' | ')} |`);
console.log(`| --- |${' ---: |'.repeat(Object.keys(FUNCTIONS).length)}`);
const worst = Object.fromEntries(Object.keys(FUNCTIONS).map((name) => [name, 0]));
for (const [shape, make] of Object.entries(SHAPES)) {
  const input = make(MB);
  const cells = Object.entries(FUNCTIONS).map(([name, fn]) => {
    const ms = median(Array.from({ length: ROUNDS }, () => time(() => fn(input))));
    worst[name] = Math.max(worst[name], ms);
    return ms.toFixed(1);
  });
  console.log(`| ${shape} | ${cells.join(' | ')} |`);
}
console.log(
  `| **worst** | ${Object.values(worst)
    .map((ms) => `**${ms.toFixed(1)}**`)
    .join(' | ')} |`,
);

// The replaced patterns grow quadratically: they are timed on 10k–40k characters only (1 MB would take minutes).
console.log(
  '\nOne adversarial line of n characters, ms (old pattern alone vs the whole new errorSignature + decide):',
);
console.log(
  '| n | old test-location pattern | old source-path pattern | old typed-error pattern | new errorSignature | new decide | old location / new decide |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const n of [10_000, 20_000, 40_000]) {
  const dots = fill('Error: ', 'a.', n);
  const capitals = fill('Error: ', 'A.', n);
  const oldLocation = median([1, 2, 3].map(() => time(() => OLD.testLocation.exec(dots))));
  const oldSource = median([1, 2, 3].map(() => time(() => OLD.sourcePath.exec(dots))));
  const oldTyped = median([1, 2, 3].map(() => time(() => OLD.typedError.exec(capitals))));
  const newSignature = median([1, 2, 3].map(() => time(() => errorSignature(dots))));
  const newDecide = median([1, 2, 3].map(() => time(() => decide(failing(dots)))));
  console.log(
    `| ${n.toLocaleString('en')} | ${oldLocation.toFixed(1)} | ${oldSource.toFixed(1)} | ${oldTyped.toFixed(1)} | ${newSignature.toFixed(2)} | ${newDecide.toFixed(2)} | ${(oldLocation / newDecide).toFixed(0)}× |`,
  );
}
