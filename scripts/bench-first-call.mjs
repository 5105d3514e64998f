// What a session's first tool call costs in the hook since it makes the session's row (sessions55):
// `guardProject` on the `before_tool` event of new sessions (each its own, in one project), in
// this process, through this build and through LOOPGUARD_BENCH_BASELINE's (a built checkout from
// before, which writes nothing there), interleaved by round; and, for scale, the `before_tool` of a
// session that has a row (answered from its memory, no write, both builds). Database opened and
// closed per call, as a command hook does.
// Run: pnpm run build && LOOPGUARD_BENCH_BASELINE=/work/base-3e38f64 node scripts/bench-first-call.mjs [sessions per round]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const N = Number(process.argv[2] ?? 200);
const ROUNDS = 5;
const baseline = process.env.LOOPGUARD_BENCH_BASELINE;
if (baseline === undefined) throw new Error('set LOOPGUARD_BENCH_BASELINE to a built checkout');
const builds = {
  this: fileURLToPath(new URL('../packages/cli/dist/hook/guardProject.js', import.meta.url)),
  before: join(baseline, 'packages/cli/dist/hook/guardProject.js'),
};
const guard = {};
for (const [name, file] of Object.entries(builds)) guard[name] = (await import(file)).guardProject;

const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-first-call-'));
const event = (dir, sessionId, kind, n) => ({
  kind,
  sessionId,
  projectDir: dir,
  eventName: kind === 'before_tool' ? 'PreToolUse' : 'PostToolUse',
  callId: `toolu_${n}`,
  tool: 'Bash',
  input: `cat src/module_${n}.py`,
  ...(kind === 'after_tool' ? { output: 'line\n', error: false } : {}),
});
const times = {
  'this: first call': [],
  'before: first call': [],
  'this: later call': [],
  'before: later call': [],
};
try {
  for (const name of Object.keys(builds)) {
    const dir = join(work, `${name}-later`);
    (await import('node:fs')).mkdirSync(dir);
    await guard[name]('claude', event(dir, 'warm', 'after_tool', 0), Date.now);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(builds)) {
      const dir = join(work, `${name}-${round}`);
      (await import('node:fs')).mkdirSync(dir);
      let start = process.hrtime.bigint();
      for (let i = 0; i < N; i++)
        await guard[name]('claude', event(dir, `s${i}`, 'before_tool', 1), Date.now);
      times[`${name}: first call`].push(Number(process.hrtime.bigint() - start) / 1e3 / N);
      const later = join(work, `${name}-later`);
      start = process.hrtime.bigint();
      for (let i = 0; i < N; i++)
        await guard[name]('claude', event(later, 'warm', 'before_tool', i + 1), Date.now);
      times[`${name}: later call`].push(Number(process.hrtime.bigint() - start) / 1e3 / N);
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  console.log(
    `${N} calls a round, ${ROUNDS} rounds; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
  );
  for (const [name, list] of Object.entries(times))
    console.log(`${name.padEnd(20)} median of rounds ${median(list).toFixed(0)} µs a call`);
  console.log(
    `first call: ${(median(times['this: first call']) / median(times['before: first call'])).toFixed(2)}× the build before`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
