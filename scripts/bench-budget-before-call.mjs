// What judging a session's budget before each of its tool calls costs (docs/decisions.md, "A session
// at its budget is denied its next call"): a Claude Code `PreToolUse` in a project whose
// configuration sets a budget, answered in-process (`answerHookEvent`, the database opened per call,
// what the command hook does after its start-up), by this build and by another one
// (LOOPGUARD_BENCH_BASELINE=<a built checkout>), calls interleaved, each build in its own project
// whose session has 20 calls and a ledger. The session is under its budget: every call is answered
// with nothing.
// Run: pnpm run build && LOOPGUARD_BENCH_BASELINE=<checkout> node scripts/bench-budget-before-call.mjs [calls]
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CALLS = Number(process.argv[2] ?? 400);
const BASELINE = process.env.LOOPGUARD_BENCH_BASELINE;
if (BASELINE === undefined) throw new Error('LOOPGUARD_BENCH_BASELINE=<a built checkout> is required');
const builds = {
  before: resolve(BASELINE, 'packages/cli/dist'),
  after: fileURLToPath(new URL('../packages/cli/dist', import.meta.url)),
};
const hooks = {};
const dirs = {};
for (const [name, dist] of Object.entries(builds)) {
  hooks[name] = await import(pathToFileURL(join(dist, 'hook/runHook.js')).href);
  const dir = mkdtempSync(join(tmpdir(), `loopguard-bench-budget-${name}-`));
  writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: 10\n');
  writeFileSync(join(dir, 'transcript.jsonl'), '');
  dirs[name] = dir;
}
const event = (dir, n, hookEventName) =>
  JSON.stringify({
    session_id: 's1',
    transcript_path: join(dir, 'transcript.jsonl'),
    cwd: dir,
    hook_event_name: hookEventName,
    tool_name: 'Bash',
    tool_input: { command: `echo ${n}` },
    ...(hookEventName === 'PostToolUse' ? { tool_response: { stdout: `${n}`, stderr: '' } } : {}),
  });
for (const name of Object.keys(builds)) {
  for (let n = 0; n < 20; n++) {
    const usage = { input_tokens: 100, output_tokens: 1 };
    const message = { id: `m${n}`, model: 'claude-sonnet-4-5', role: 'assistant', usage, content: [] };
    const record = { type: 'assistant', timestamp: new Date().toISOString(), message };
    appendFileSync(join(dirs[name], 'transcript.jsonl'), `${JSON.stringify(record)}\n`);
    await hooks[name].answerHookEvent('claude', event(dirs[name], n, 'PostToolUse'), {
      env: {},
      cwd: dirs[name],
    });
  }
}
const times = { before: [], after: [] };
for (let round = 0; round < CALLS; round++) {
  for (const name of round % 2 === 0 ? ['after', 'before'] : ['before', 'after']) {
    const start = process.hrtime.bigint();
    const reply = await hooks[name].answerHookEvent('claude', event(dirs[name], 1000 + round, 'PreToolUse'), {
      env: {},
      cwd: dirs[name],
    });
    times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    if (reply !== '') throw new Error(`${name} answered ${reply}`);
  }
}
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)];
for (const name of ['before', 'after'])
  console.log(
    `${name} (${builds[name]}): p50 ${quantile(times[name], 0.5).toFixed(3)} ms, p90 ${quantile(times[name], 0.9).toFixed(3)} ms, ${CALLS} calls`,
  );
for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
