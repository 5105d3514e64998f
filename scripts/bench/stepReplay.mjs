// One labelled run replayed `reps` times into each build of StepLoopDetector, the builds taking
// turns to go first (every other run and replay): neither gets the warm caches. Shared by the
// benches that time observe() step by step (bench-steps-versions, bench-steps-cost).

/**
 * Each step's minimum cost over the replays, per build (ns), and what the first replay cost each
 * build: its steps' sum as timed (ns, garbage collection included) and the process's CPU time over
 * it (µs, every thread's).
 * @param {Array<new () => { observe(step: unknown): { action: string } }>} detectors - the builds' classes.
 * @param {{ steps: unknown[] }} run - the run replayed.
 * @param {number} runIndex - the run's place in its corpus (sets which build goes first).
 * @param {number} reps - the replays per build.
 */
export function replayStepMinimums(detectors, run, runIndex, reps) {
  const mins = detectors.map(() => new Float64Array(run.steps.length).fill(Number.POSITIVE_INFINITY));
  const onePassNs = detectors.map(() => 0);
  const onePassCpuUs = detectors.map(() => 0);
  const order = detectors.map((_, d) => d);
  for (let rep = 0; rep < reps; rep++) {
    for (const d of (runIndex + rep) % 2 === 0 ? order : [...order].reverse()) {
      const Detector = detectors[d];
      // instances made before timing: construction is not observe()
      const fresh = [new Detector(), new Detector(), new Detector(), new Detector()];
      let instance = fresh.shift();
      const cpu = process.cpuUsage();
      run.steps.forEach((step, i) => {
        const start = process.hrtime.bigint();
        const verdict = instance.observe(step);
        const ns = Number(process.hrtime.bigint() - start);
        if (ns < mins[d][i]) mins[d][i] = ns;
        if (rep === 0) onePassNs[d] += ns;
        if (verdict.action === 'stop') instance = fresh.shift() ?? new Detector();
      });
      if (rep === 0) {
        const used = process.cpuUsage(cpu);
        onePassCpuUs[d] += used.user + used.system;
      }
    }
  }
  return { mins, onePassNs, onePassCpuUs };
}
