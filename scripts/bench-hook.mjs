// Latency of one `loopguard hook claude` call, node start-up included, on a session of 2,000 steps,
// against a no-op hook (`node -e ''`) in the same run, calls interleaved. Also measured: the same
// call through the whole command tree (commander and every command loaded), which is what the hook
// cost before `bin.js` dispatched hook calls to a lazy entry. Targets: p50 ≤ 60 ms, p99 ≤ 150 ms.
// Run: npx tsc -b && node scripts/bench-hook.mjs [calls per variant]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALLS = Number(process.argv[2] ?? 60);
const SESSION_STEPS = 2000;
const cli = (path) => fileURLToPath(new URL(`../packages/cli/dist/${path}`, import.meta.url));
const bin = cli('bin.js');
const { guardProject } = await import(cli('hook/guardProject.js'));

const dir = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-hook-'));
const session = 'bench-session';
const event = (name, fields) => ({
  session_id: session,
  transcript_path: join(dir, 't.jsonl'),
  cwd: dir,
  hook_event_name: name,
  ...fields,
});

// A session of 2,000 steps (1,000 tool calls): 400 distinct commands over files of 1-3 KB, some
// failing, written through the hook's own code path (one transaction per call, as the CLI does).
const output = (i) =>
  `${`line ${i % 97} of the file, with some text to make it realistic\n`.repeat(20 + (i % 40))}`;
for (let i = 0; i < SESSION_STEPS / 2; i++) {
  const n = i % 400;
  await guardProject(
    'claude',
    {
      kind: 'after_tool',
      sessionId: session,
      projectDir: dir,
      eventName: 'PostToolUse',
      tool: 'Bash',
      input: n % 3 === 0 ? `pytest tests/test_${n}.py` : `cat src/module_${n}.py`,
      output: `${output(i)}${i}`,
      error: n % 7 === 0,
    },
    Date.now,
  );
}

const { openLoopGuardDatabase } = await import(cli('../node_modules/@loopguard/sqlite/dist/index.js'));
const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
const row = database.db
  .prepare('SELECT steps, length(snapshot) AS snapshot, length(last_results) AS results FROM hook_sessions')
  .get();
database.close();

const variants = {
  'no-op hook (node -e "")': { args: ['-e', ''], input: '' },
  'hook PreToolUse (lazy entry)': {
    args: [bin, 'hook', 'claude'],
    input: JSON.stringify(event('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git status' } })),
  },
  // a new command each call (progress): the session grows by 2 steps per call
  'hook PostToolUse (lazy entry)': {
    args: [bin, 'hook', 'claude'],
    input: (round) =>
      JSON.stringify(
        event('PostToolUse', {
          tool_name: 'Bash',
          tool_input: { command: `git show HEAD~${round} --stat` },
          tool_response: { stdout: `commit ${round}\n 1 file changed, ${round} insertions(+)`, stderr: '' },
        }),
      ),
  },
  'hook PreToolUse (whole command tree)': {
    args: [
      '--input-type=module',
      '-e',
      `const { runCli } = await import(${JSON.stringify(cli('main.js'))}); const { processIo } = await import(${JSON.stringify(cli('cliIo.js'))}); process.exitCode = await runCli(['hook', 'claude'], processIo());`,
    ],
    input: JSON.stringify(event('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git status' } })),
  },
};

const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < CALLS; round++) {
  for (const [name, { args, input }] of Object.entries(variants)) {
    const start = process.hrtime.bigint();
    const stdin = typeof input === 'function' ? input(round) : input;
    const result = spawnSync(process.execPath, args, { cwd: dir, input: stdin, encoding: 'utf8' });
    times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0 || result.stdout !== '')
      throw new Error(`${name}: exit ${result.status}, stdout ${result.stdout}`);
  }
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const noop = times['no-op hook (node -e "")'];
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  `session: ${row.steps} steps before the run (snapshot ${(row.snapshot / 1024).toFixed(0)} KiB, last results ${(row.results / 1024).toFixed(0)} KiB); ${CALLS} calls per variant, interleaved\n`,
);
console.log('| variant | p50 ms | p99 ms | p50 ratio to no-op |');
console.log('| --- | --- | --- | --- |');
for (const [name, values] of Object.entries(times)) {
  console.log(
    `| ${name} | ${pct(values, 50).toFixed(1)} | ${pct(values, 99).toFixed(1)} | ${(pct(values, 50) / pct(noop, 50)).toFixed(2)} |`,
  );
}
rmSync(dir, { recursive: true, force: true });
