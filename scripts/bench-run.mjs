// Overhead of `loopguard run` per iteration, against a plain bash loop that runs the same no-op
// agent and `git diff --quiet` each iteration, measured in the same run on the same machine.
// Overhead = loopguard's wall time minus the agent's own time (the durations loopguard measured
// around each agent process, from metrics.json). Target: overhead ≤ 2× the bash loop's time per
// iteration. 200 iterations = 4 runs of 50 (the max-iterations cap), rounds interleaved.
// Run: pnpm run bench:run   (or: npx tsc -b && node scripts/bench-run.mjs [iterations])
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ITERATIONS = Number(process.argv[2] ?? 200);
const PER_RUN = 50;
const ROUNDS = 3;
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));

function repo() {
  const dir = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-'));
  const git = (...args) => execFileSync('git', args, { cwd: dir });
  git('init', '-q');
  git('config', 'user.email', 'bench@example.com');
  git('config', 'user.name', 'bench');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  writeFileSync(join(dir, 'PROMPT.md'), 'Do nothing.\n');
  writeFileSync(join(dir, 'agent.sh'), '#!/bin/sh\ncat > /dev/null\n');
  chmodSync(join(dir, 'agent.sh'), 0o755);
  git('add', '.');
  git('commit', '-qm', 'init');
  return dir;
}

function bashLoop(dir) {
  const script = `for i in $(seq 1 ${ITERATIONS}); do ./agent.sh < PROMPT.md; git diff --quiet || true; done`;
  const start = process.hrtime.bigint();
  const result = spawnSync('bash', ['-c', script], { cwd: dir, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`bash loop failed: ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function loopguardRuns(dir) {
  let wall = 0;
  for (let done = 0; done < ITERATIONS; done += PER_RUN) {
    const n = Math.min(PER_RUN, ITERATIONS - done);
    const start = process.hrtime.bigint();
    const result = spawnSync(
      process.execPath,
      [
        bin,
        'run',
        '--prompt-file',
        'PROMPT.md',
        '--max-iterations',
        String(n),
        '--on-stagnation',
        'alert',
        '--json',
        '--',
        './agent.sh',
      ],
      { cwd: dir, stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } },
    );
    wall += Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 5)
      throw new Error(`loopguard run ended with ${result.status}, expected 5 (budget spent)`);
  }
  let agent = 0;
  const runsDir = join(dir, '.loopguard', 'runs');
  for (const run of readdirSync(runsDir)) {
    for (const it of readdirSync(join(runsDir, run, 'iterations'))) {
      agent += JSON.parse(
        readFileSync(join(runsDir, run, 'iterations', it, 'metrics.json'), 'utf8'),
      ).durationMs;
    }
  }
  return { wall, agent };
}

const rows = [];
for (let round = 1; round <= ROUNDS; round++) {
  const dir = repo();
  const bash = bashLoop(dir);
  const lg = loopguardRuns(dir);
  rmSync(dir, { recursive: true, force: true });
  const bashPerIteration = bash / ITERATIONS;
  const overheadPerIteration = (lg.wall - lg.agent) / ITERATIONS;
  rows.push({
    round,
    bashPerIteration,
    lgPerIteration: lg.wall / ITERATIONS,
    agentPerIteration: lg.agent / ITERATIONS,
    overheadPerIteration,
    ratio: overheadPerIteration / bashPerIteration,
  });
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `loopguard run overhead, ${ITERATIONS} iterations of a no-op agent, ${ROUNDS} rounds (Node ${process.version}, ${os.cpus().length} cores)`,
);
console.log('round  bash loop ms/it  loopguard ms/it  agent ms/it  overhead ms/it  overhead / bash');
for (const r of rows) {
  console.log(
    `${String(r.round).padEnd(5)}  ${r.bashPerIteration.toFixed(2).padStart(15)}  ${r.lgPerIteration.toFixed(2).padStart(15)}  ${r.agentPerIteration.toFixed(2).padStart(11)}  ${r.overheadPerIteration.toFixed(2).padStart(14)}  ${r.ratio.toFixed(2).padStart(15)}`,
  );
}
const ratio = median(rows.map((r) => r.ratio));
console.log(
  `median overhead / bash loop iteration: ${ratio.toFixed(2)}× (target ≤ 2×) ${ratio <= 2 ? 'MET' : 'NOT MET'}`,
);
