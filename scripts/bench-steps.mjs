// Quality benchmark of the step-level loop detector on real agent runs, side by side with
// Gemini CLI's own LoopDetectionService and a re-implementation of OpenHands' StuckDetector rules,
// on all three dev corpora in one run: the strong model's runs (false alarms; injected loops), then
// the hand-labelled loops of a strong model in OpenHands and of weaker models in SWE-agent (each
// also alone: scripts/bench-steps-labelled.mjs --corpus openhands|java).
// Run: npx tsc -b && node scripts/bench-steps.mjs
// Env: LOOPGUARD_BENCH_BASELINE (an older packages/core/dist: a "loopguard before" column, see
// bench/loopguardBuilds.mjs), LOOPGUARD_STEP_OPTIONS, LOOPGUARD_STEP_CORPUS (corpus dir, default ../shared/corpora/swe-trajectories-dev from the repo
// root), LOOPGUARD_BENCH_CACHE (where @google/gemini-cli-core is installed), LOOPGUARD_BENCH_SEED.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import {
  GEMINI_CLI_CORE_VERSION,
  GeminiPeer,
  loadGeminiLoopDetectionService,
} from './bench/geminiLoopService.mjs';
import { INJECTED_KINDS, injectedCases } from './bench/injectLoops.mjs';
import { printLabelledTable } from './bench/labelledLoops.mjs';
import { loopguardDetectors } from './bench/loopguardBuilds.mjs';
import { OpenHandsStuckRules } from './bench/openHandsStuckRules.mjs';
import { corpusDir, loadCorpus } from './bench/stepCorpus.mjs';

const SEED = Number(process.env.LOOPGUARD_BENCH_SEED ?? 20251118);
const labels = JSON.parse(readFileSync(new URL('./bench/step-labels.json', import.meta.url), 'utf8')).labels;

const LoopDetectionService = await loadGeminiLoopDetectionService();
const detectors = [
  ...(await loopguardDetectors()),
  { name: `gemini-cli ${GEMINI_CLI_CORE_VERSION}`, create: () => new GeminiPeer(LoopDetectionService) },
  { name: 'openhands rules', create: () => new OpenHandsStuckRules() },
];

/** The verdicts of one detector over one stream: first nudge-or-stop index and first stop index. */
function play(detector, steps, from = 0) {
  const instance = detector.create();
  let firstDetection = -1;
  let firstStop = -1;
  const detections = [];
  for (let i = 0; i < steps.length; i++) {
    const action = instance.observe(steps[i]);
    if (action === 'continue') continue;
    detections.push(i);
    if (i >= from && firstDetection === -1) firstDetection = i;
    if (action === 'stop' && i >= from && firstStop === -1) firstStop = i;
  }
  return { firstDetection, firstStop, detections };
}

const pct = (n, d) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);
const median = (values) => {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((a, b) => a - b);
  return String(sorted[Math.floor((sorted.length - 1) / 2)]);
};

const runs = loadCorpus();
const resolved = runs.filter((run) => run.resolved);
const unresolved = runs.filter((run) => !run.resolved);
const cases = injectedCases(resolved, SEED);
const byId = new Map(runs.map((run) => [run.id, run]));
const genuine = labels.filter((label) => label.genuine);
const nonLoops = labels.filter((label) => !label.genuine);

const rows = [];
const falseStops = [];
for (const detector of detectors) {
  const row = { name: detector.name };
  let stopped = 0;
  let nudged = 0;
  for (const run of resolved) {
    const { firstDetection, firstStop } = play(detector, run.steps);
    if (firstStop !== -1) stopped++;
    if (firstDetection !== -1) nudged++;
    if (firstStop !== -1) falseStops.push(`${detector.name}: ${run.id} at step ${firstStop}`);
  }
  row.resolvedStopped = pct(stopped, resolved.length);
  row.resolvedDetected = pct(nudged, resolved.length);
  let unresolvedDetected = 0;
  for (const run of unresolved) if (play(detector, run.steps).firstDetection !== -1) unresolvedDetected++;
  row.unresolvedDetected = pct(unresolvedDetected, unresolved.length);
  const delays = [];
  const stopDelays = [];
  let stoppedInjected = 0;
  for (const kind of Object.keys(INJECTED_KINDS)) {
    const ofKind = cases.filter((c) => c.kind === kind);
    let caught = 0;
    const kindDelays = [];
    for (const c of ofKind) {
      const { firstDetection, firstStop } = play(detector, c.steps, c.start);
      if (firstStop !== -1) {
        stoppedInjected++;
        stopDelays.push(Math.max(0, firstStop - c.certain));
      }
      if (firstDetection === -1 || firstDetection > c.end) continue;
      caught++;
      delays.push(Math.max(0, firstDetection - c.certain));
      kindDelays.push(Math.max(0, firstDetection - c.certain));
    }
    row[kind] = pct(caught, ofKind.length);
    row[`delay:${kind}`] = median(kindDelays);
  }
  row.injectedAll = pct(delays.length, cases.length);
  row.injectedStopped = pct(stoppedInjected, cases.length);
  row.delay = median(delays);
  row.stopDelay = median(stopDelays);
  let caughtLabels = 0;
  for (const label of genuine) {
    const { detections } = play(detector, byId.get(label.run).steps);
    if (detections.some((i) => i >= label.from && i <= label.to)) caughtLabels++;
  }
  row.labelledLoops = genuine.length === 0 ? 'n/a (none found)' : pct(caughtLabels, genuine.length);
  let falseOnNonLoops = 0;
  for (const label of nonLoops) {
    const { detections } = play(detector, byId.get(label.run).steps);
    if (detections.some((i) => i >= label.from && i <= label.to)) falseOnNonLoops++;
  }
  row.nonLoopsFlagged = `${falseOnNonLoops} of ${nonLoops.length}`;
  rows.push(row);
}

const lines = [
  ['resolved runs stopped (false stops)', 'resolvedStopped'],
  ['resolved runs with any detection (loopguard: nudge)', 'resolvedDetected'],
  ['unresolved runs with any detection', 'unresolvedDetected'],
  ...Object.keys(INJECTED_KINDS).map((kind) => [`recall, injected ${kind}`, kind]),
  ['recall, all injected loops', 'injectedAll'],
  ['injected loops stopped by their end', 'injectedStopped'],
  ['median detection delay (steps after certain)', 'delay'],
  ['median delay, certain to stop (steps)', 'stopDelay'],
  ...Object.keys(INJECTED_KINDS).map((kind) => [`median delay, ${kind}`, `delay:${kind}`]),
  ['recall, labelled genuine loops', 'labelledLoops'],
  ['labelled non-loops flagged', 'nonLoopsFlagged'],
];
console.log(`Step-level loop detection on ${corpusDir()}`);
console.log(
  `${runs.length} runs (${resolved.length} resolved, ${unresolved.length} unresolved); ${cases.length} injected loops (seed ${SEED}); ${genuine.length} genuine / ${nonLoops.length} non-loop labels`,
);
console.log(`node ${process.version}, ${os.cpus().length} cores\n`);
console.log(`| figure | ${rows.map((r) => r.name).join(' | ')} |`);
console.log(`| --- | ${rows.map(() => '---').join(' | ')} |`);
for (const [label, key] of lines) console.log(`| ${label} | ${rows.map((r) => r[key]).join(' | ')} |`);
if (falseStops.length > 0) console.log(`\nstops in resolved runs: ${falseStops.join('; ')}`);

for (const corpus of ['openhands', 'java']) {
  console.log('');
  printLabelledTable(detectors, { corpus });
}
