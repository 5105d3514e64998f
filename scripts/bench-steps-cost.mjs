// How StepLoopDetector.observe()'s cost scales with what a step holds, for one build or several
// compared in the same run: every run of the three dev corpora is replayed REPS times into each
// build (interleaved, the builds taking turns to go first), each step's cost is its minimum over the
// replays, and for each kind of step (action, observation, message) a least-squares line fits that
// cost to the characters the step brings: an action's input text (a string as given, else its
// JSON), an observation's output as far as it is read (its first 6,001 characters: the head and
// tail the fingerprint reads), a message's text. The line's intercept is what a step of that kind
// costs whatever its length (the turn's bookkeeping, the rules, the ledger), its slope what each
// character costs; with the mean and the share of the corpus's cost, that says whether a cut should
// read less text or do less per step.
// Run: npx tsc -b && node scripts/bench-steps-cost.mjs DIST [DIST...]   (e.g. packages/core/dist)
// Env: LOOPGUARD_BENCH_REPS (default 7).
import { buildsCompared } from './bench/buildsCompared.mjs';
import { replayStepMinimums } from './bench/stepReplay.mjs';

const REPS = Number(process.env.LOOPGUARD_BENCH_REPS ?? 7);
/** The characters of an output that the fingerprint reads (its head and tail, see `fingerprintedText`). */
const OUTPUT_READ = 6001;
const KINDS = ['action', 'observation', 'message'];
const { builds, detectors, corpora } = await buildsCompared(
  'node scripts/bench-steps-cost.mjs DIST [DIST...]',
);

/** The characters `step` brings (see the header). */
function charactersOf(step) {
  if (step.type === 'observation') return Math.min(String(step.output ?? '').length, OUTPUT_READ);
  if (step.type === 'message') return String(step.text ?? '').length;
  return typeof step.input === 'string' ? step.input.length : (JSON.stringify(step.input) ?? '').length;
}

/** Least-squares `µs = fixed + perChar × characters` over `points` ([characters, µs] pairs). */
function fitLine(points) {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
  }
  const perChar = sxx === 0 ? 0 : sxy / sxx;
  return { n, meanX, meanY, perChar, fixed: meanY - perChar * meanX };
}

console.log(
  '| corpus | build | µs a step (min of replays) | kind | steps | mean characters | mean µs | share of the cost | fixed µs | ns a character |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name, runs] of corpora) {
  const points = detectors.map(() => Object.fromEntries(KINDS.map((kind) => [kind, []])));
  runs.forEach((run, r) => {
    const { mins } = replayStepMinimums(detectors, run, r, REPS);
    mins.forEach((m, d) => {
      run.steps.forEach((step, i) => {
        points[d][step.type]?.push([charactersOf(step), m[i] / 1000]);
      });
    });
  });
  points.forEach((byKind, d) => {
    const all = KINDS.flatMap((kind) => byKind[kind]);
    const total = all.reduce((sum, [, y]) => sum + y, 0);
    for (const kind of KINDS) {
      if (byKind[kind].length === 0) continue;
      const line = fitLine(byKind[kind]);
      const share = (byKind[kind].reduce((sum, [, y]) => sum + y, 0) / total) * 100;
      console.log(
        `| ${name} | ${builds[d]} | ${(total / all.length).toFixed(2)} | ${kind} | ${line.n} | ${line.meanX.toFixed(0)} | ${line.meanY.toFixed(1)} | ${share.toFixed(0)} % | ${line.fixed.toFixed(1)} | ${(line.perChar * 1000).toFixed(1)} |`,
      );
    }
  });
}
