// A million fuzzed inputs (issue 32) through every parser: core's stream parsers, scan's transcript
// parsers and the hook's entry, each line a mutation of a recorded transcript or hook event
// (packages/cli/test/fuzz: the same targets and mutator as the fuzz test in CI, which runs a few
// thousand). Prints the inputs, what they gave (steps, documented skips, typed rejections, untyped
// errors), the slowest call and the peak RSS. The harness (TypeScript) is bundled with rolldown
// into a temporary folder under the CLI package's dist, so that it imports the built @loopguard packages.
// Run: pnpm run build && node scripts/bench-fuzz.mjs [INPUTS=1000000] [SEED=32]
import { rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const INPUTS = Number(process.argv[2] ?? 1_000_000);
const SEED = Number(process.argv[3] ?? 32);
const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const out = join(cli, 'dist', `bench-fuzz-${process.pid}`); // ignored by git and the linter, beside the CLI's modules
await build({
  input: join(cli, 'test', 'fuzz', 'fuzzTargets.ts'),
  cwd: cli,
  platform: 'node',
  external: [/^@loopguard\//, /^node:/, 'better-sqlite3'],
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: 'fuzz.mjs' },
});
try {
  // the bundle reads the fixtures relative to its own place: point it at the test folder's
  process.chdir(cli);
  const { fuzzTargets, runFuzz } = await import(pathToFileURL(join(out, 'fuzz.mjs')).href);
  const targets = fuzzTargets(join(cli, 'test', 'fuzz'));
  const start = performance.now();
  const counts = runFuzz(INPUTS, SEED, targets);
  const seconds = (performance.now() - start) / 1000;
  const { steps, skip, typed, untyped } = counts.outcomes;
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}; seed ${SEED}; ${targets.length} targets: ${targets.map((t) => t.name).join(', ')}\n`,
  );
  console.log(
    '| inputs | read (steps) | documented skips | typed rejections | untyped errors | slowest call | peak RSS | wall time |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(
    `| ${counts.inputs} | ${steps} | ${skip} | ${typed} | ${untyped} | ${counts.slowest.ms.toFixed(0)} ms (${counts.slowest.target}) | ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB | ${seconds.toFixed(0)} s |`,
  );
  if (counts.unnamed > 0) console.log(`\n${counts.unnamed} typed rejections with an empty message`);
  for (const { target, error, input } of counts.untyped)
    console.log(`\nuntyped: ${target}: ${error}\n  input: ${input}`);
  console.log(`\nslowest input: ${counts.slowest.input}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
