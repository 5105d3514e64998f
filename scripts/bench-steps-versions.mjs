// Two builds of StepLoopDetector compared in the same run, on a loaded machine: every run of the
// three dev corpora is replayed REPS times into each build (interleaved), and each step's cost is its
// minimum over the replays (the same step in the same state each time: the minimum removes the
// time the process was descheduled). Prints the mean of those minimums per step and the ratio, and
// what a user pays: the mean per step over the first replay of every run (one pass, each step timed
// as it comes, garbage collection included), with its ratio; and that pass by the process's CPU time
// (every thread: the collector's and the compiler's included, the time the process waited for a core
// left out), which on a loaded machine is the steadier of the two one-pass figures.
// Run: build the old version and copy packages/core/dist to DIR (inside packages/core/node_modules
// so that its dependencies resolve), then
//   npx tsc -b && node scripts/bench-steps-versions.mjs DIR packages/core/dist
// Env: LOOPGUARD_BENCH_REPS (default 7).
import { buildsCompared } from './bench/buildsCompared.mjs';
import { replayStepMinimums } from './bench/stepReplay.mjs';

const REPS = Number(process.env.LOOPGUARD_BENCH_REPS ?? 7);
const { builds, detectors, corpora } = await buildsCompared(
  'node scripts/bench-steps-versions.mjs OLD_DIST [NEW_DIST]',
);

console.log(
  `| corpus | ${builds.map((b) => `${b} (min of ${REPS})`).join(' | ')} | ratio | ${builds.map((b) => `${b} (one pass)`).join(' | ')} | ratio | ${builds.map((b) => `${b} (one pass, CPU)`).join(' | ')} | ratio |`,
);
console.log(
  `| --- | ${builds.map(() => '---').join(' | ')} | --- | ${builds.map(() => '---').join(' | ')} | --- | ${builds.map(() => '---').join(' | ')} | --- |`,
);
for (const [name, runs] of corpora) {
  const sums = detectors.map(() => 0);
  const onePass = detectors.map(() => 0);
  const onePassCpu = detectors.map(() => 0);
  let steps = 0;
  runs.forEach((run, r) => {
    const replay = replayStepMinimums(detectors, run, r, REPS);
    const mins = replay.mins;
    replay.onePassNs.forEach((ns, d) => {
      onePass[d] += ns;
    });
    replay.onePassCpuUs.forEach((us, d) => {
      onePassCpu[d] += us;
    });
    steps += run.steps.length;
    mins.forEach((m, d) => {
      for (const ns of m) sums[d] += ns;
    });
  });
  const means = sums.map((sum) => sum / steps / 1000);
  const ratio = (means[means.length - 1] / means[0]).toFixed(3);
  const passes = onePass.map((sum) => sum / steps / 1000);
  const passRatio = (passes[passes.length - 1] / passes[0]).toFixed(3);
  const cpus = onePassCpu.map((sum) => sum / steps);
  const cpuRatio = (cpus[cpus.length - 1] / cpus[0]).toFixed(3);
  const µs = (values) => values.map((m) => `${m.toFixed(2)} µs`).join(' | ');
  console.log(
    `| ${name} | ${µs(means)} | ${ratio} | ${µs(passes)} | ${passRatio} | ${µs(cpus)} | ${cpuRatio} |`,
  );
}
