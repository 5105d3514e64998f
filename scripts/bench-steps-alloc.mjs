// What StepLoopDetector.observe() allocates a step: the garbage a one-pass replay makes the
// collector pay for. For each build, over every run of the three dev corpora (a fresh detector per
// run, and after each stop; two warm passes first), V8's sampling heap profiler (one sample every
// 128 bytes, the objects the collector freed included) gives the bytes allocated a step; then the
// last build's largest allocation sites, a native function (`split`, a `Set`'s `add`) named with the
// function of the build that called it. Bytes are counted, not timed: the figure does not depend on
// the machine's load, and two builds are compared by their ratio.
// Run: npx tsc -b && node scripts/bench-steps-alloc.mjs OLD_DIST [NEW_DIST]
// Env: LOOPGUARD_BENCH_SITES (default 12): the sites listed per corpus.
import { Session } from 'node:inspector/promises';
import { buildsCompared } from './bench/buildsCompared.mjs';

const SITES = Number(process.env.LOOPGUARD_BENCH_SITES ?? 12);
const { builds, detectors, corpora } = await buildsCompared(
  'node scripts/bench-steps-alloc.mjs OLD_DIST [NEW_DIST]',
);
const session = new Session();
session.connect();

function replay(Detector, runs) {
  for (const run of runs) {
    let detector = new Detector();
    for (const step of run.steps) if (detector.observe(step).action === 'stop') detector = new Detector();
  }
}

/** The bytes sampled over one replay, and by site (`function file:line`). */
async function sampled(Detector, runs) {
  replay(Detector, runs);
  replay(Detector, runs);
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 128,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  replay(Detector, runs);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const sites = new Map();
  let total = 0;
  const walk = (node, caller) => {
    const frame = node.callFrame;
    const own =
      frame.url === ''
        ? null
        : `${frame.functionName || '(anonymous)'} ${frame.url.split(/\/dist[^/]*\//).pop()}:${frame.lineNumber + 1}`;
    const site = own ?? `${frame.functionName || '(native)'} <- ${caller}`;
    total += node.selfSize;
    if (node.selfSize > 0) sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, own ?? caller);
  };
  walk(profile.head, '(root)');
  return { total, sites };
}

console.log(`| corpus | ${builds.map((b) => `${b} (B a step)`).join(' | ')} | ratio |`);
console.log(`| --- | ${builds.map(() => '---').join(' | ')} | --- |`);
const largest = [];
for (const [name, runs] of corpora) {
  const steps = runs.reduce((sum, run) => sum + run.steps.length, 0);
  const results = [];
  for (const Detector of detectors) results.push(await sampled(Detector, runs));
  const perStep = results.map((r) => r.total / steps);
  console.log(
    `| ${name} | ${perStep.map((b) => b.toFixed(0)).join(' | ')} | ${(perStep[perStep.length - 1] / perStep[0]).toFixed(3)} |`,
  );
  const last = results[results.length - 1].sites;
  largest.push([
    name,
    [...last]
      .sort((a, b) => b[1] - a[1])
      .slice(0, SITES)
      .map(([site, bytes]) => [site, bytes / steps]),
  ]);
}
for (const [name, sites] of largest) {
  console.log(`\n${name}, ${builds[builds.length - 1]}: the largest sites, B a step`);
  for (const [site, bytes] of sites) console.log(`${bytes.toFixed(0).padStart(6)}  ${site}`);
}
