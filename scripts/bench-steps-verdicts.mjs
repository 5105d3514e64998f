// Two builds of StepLoopDetector, every verdict compared: each run of the three dev corpora (and the
// gemini-3-pro corpus's injected loops, as bench-steps.mjs builds them) is replayed into both builds,
// and every field of every verdict (action, loop type, repeats, evidence, message, since, step, tool
// call, followsNudge) must be equal. Each stream is played twice: once on one detector to its end
// (the state after a stop is exercised too), once as the benches play it (a fresh detector after a
// stop). Prints the differences (the first few of each corpus in full, the rest one line each) and
// exits 1 when there is one.
// Also counts the streams whose final snapshot (the stored fingerprints and keys) differs: allowed
// only with a new snapshot layout, and reported, not failed.
// Run: build the old version and copy packages/core/dist to DIR (inside packages/core/node_modules
// so that its dependencies resolve), then
//   npx tsc -b && node scripts/bench-steps-verdicts.mjs DIR packages/core/dist
// Env: LOOPGUARD_BENCH_SEED (the injected loops' seed, as bench-steps.mjs).
import { injectedCases } from './bench/injectLoops.mjs';
import { labelledStepCorpora } from './bench/labelledLoops.mjs';
import { stepDetectorOf } from './bench/stepBuild.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const SEED = Number(process.env.LOOPGUARD_BENCH_SEED ?? 20251118);
const SHOWN = 3;
const builds = process.argv.slice(2);
if (builds.length !== 2) {
  console.error('usage: node scripts/bench-steps-verdicts.mjs OLD_DIST NEW_DIST');
  process.exit(2);
}
const [Before, After] = await Promise.all(builds.map(stepDetectorOf));

const gemini = loadCorpus();
const corpora = [
  ['gemini-3-pro', gemini],
  [
    'gemini-3-pro, injected loops',
    injectedCases(
      gemini.filter((run) => run.resolved),
      SEED,
    ).map((c) => ({ id: `${c.run} + ${c.kind}`, steps: c.steps })),
  ],
  ...labelledStepCorpora(),
];

/**
 * Every verdict of one stream, as text; `freshAfterStop` replays as the benches do. Without it, the
 * detector's snapshot at the end is the last entry (what it stores: its fingerprints and keys).
 */
function verdicts(Detector, steps, freshAfterStop) {
  let detector = new Detector();
  const texts = steps.map((step) => {
    const verdict = detector.observe(step);
    if (freshAfterStop && verdict.action === 'stop') detector = new Detector();
    return JSON.stringify(verdict);
  });
  if (!freshAfterStop) texts.push(JSON.stringify(detector.snapshot()));
  return texts;
}

let total = 0;
for (const [name, runs] of corpora) {
  let compared = 0;
  let differing = 0;
  let snapshots = 0;
  for (const run of runs) {
    for (const freshAfterStop of [false, true]) {
      const before = verdicts(Before, run.steps, freshAfterStop);
      const after = verdicts(After, run.steps, freshAfterStop);
      if (!freshAfterStop && before.pop() !== after.pop()) snapshots++;
      compared += before.length;
      for (let i = 0; i < before.length; i++) {
        if (before[i] === after[i]) continue;
        if (differing++ < SHOWN) {
          console.log(`${name} ${run.id} step ${i}${freshAfterStop ? ' (fresh after stop)' : ''}:`);
          console.log(`  before ${before[i]}\n  after  ${after[i]}`);
        } else {
          // The rest, one line each: where, and the action and loop type before and after.
          const [b, a] = [JSON.parse(before[i]), JSON.parse(after[i])];
          console.log(
            `${name} ${run.id} step ${i}${freshAfterStop ? ' (fresh after stop)' : ''}: ${b.action} ${b.loopType ?? ''} -> ${a.action} ${a.loopType ?? ''}`,
          );
        }
      }
    }
  }
  total += differing;
  console.log(
    `${name}: ${differing} verdicts differ of ${compared} compared; ${snapshots} of ${runs.length} final snapshots differ`,
  );
}
process.exit(total === 0 ? 0 : 1);
