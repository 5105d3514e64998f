// A million fuzzed inputs (issue 32) through every parser: core's stream parsers, scan's transcript
// parsers, the hook's entry and the MCP server's reading of a hook call, each line a mutation of a
// recorded transcript or hook event (packages/cli/test/fuzz: the same targets and mutator as the
// fuzz test in CI, which runs a few thousand). Prints the inputs, what they gave (steps, documented
// skips, typed rejections, untyped errors), the slowest call and the peak RSS. Then (issue 38) the
// MCP server itself (`loopguard mcp`), MCP_INPUTS messages through fresh servers of one project
// (mcpFuzz.ts: messages, arguments, sessions): requests unanswered, untyped errors, and the slowest
// reply against Claude Code's hook timeout (10 s). The harness (TypeScript) is bundled with rolldown
// into a temporary folder under the CLI package's dist, so that it imports the built @loopguard packages.
// Run: pnpm run build && node scripts/bench-fuzz.mjs [INPUTS=1000000] [SEED=32] [MCP_INPUTS=INPUTS]
import { rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const INPUTS = Number(process.argv[2] ?? 1_000_000);
const SEED = Number(process.argv[3] ?? 32);
const MCP_INPUTS = Number(process.argv[4] ?? INPUTS);
/** Claude Code's hook timeout that `init claude` writes (`--timeout`, default 10 s): a later reply is lost. */
const DEADLINE_MS = 10_000;
const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const out = join(cli, 'dist', `bench-fuzz-${process.pid}`); // ignored by git and the linter, beside the CLI's modules
await build({
  input: { fuzz: join(cli, 'test', 'fuzz', 'fuzzTargets.ts'), mcp: join(cli, 'test', 'fuzz', 'mcpFuzz.ts') },
  cwd: cli,
  platform: 'node',
  external: [/^@loopguard\//, /^node:/, 'better-sqlite3'],
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: '[name].mjs' },
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

  if (MCP_INPUTS > 0) {
    const { runMcpFuzz } = await import(pathToFileURL(join(out, 'mcp.mjs')).href);
    const mcpStart = performance.now();
    const mcp = await runMcpFuzz(MCP_INPUTS, SEED, join(cli, 'test', 'fuzz'));
    const mcpSeconds = (performance.now() - mcpStart) / 1000;
    const { results, toolErrors, errors } = mcp.replies;
    console.log(
      `\nthe MCP server (loopguard mcp): ${mcp.sessions} servers of up to 40 messages, seed ${SEED}\n`,
    );
    console.log(
      '| messages | requests | results (of which tool errors) | JSON-RPC errors | unanswered | extra replies | untyped errors | slowest reply | past 10 s | peak RSS | wall time |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    console.log(
      `| ${mcp.inputs} | ${mcp.requests} | ${results} (${toolErrors}) | ${errors} | ${mcp.unanswered} | ${mcp.extra} | ${mcp.untyped} | ${mcp.slowest.ms.toFixed(0)} ms | ${mcp.slowest.ms > DEADLINE_MS ? 'yes' : 0} | ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB | ${mcpSeconds.toFixed(0)} s |`,
    );
    for (const { error, input } of mcp.samples) console.log(`\nuntyped: ${error}\n  input: ${input}`);
    console.log(`\nslowest message: ${mcp.slowest.input}`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
