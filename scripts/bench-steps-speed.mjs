// Speed of StepLoopDetector.observe() per step, at 10 and 10,000 steps of history, measured in the
// same run as Gemini CLI's LoopDetectionService.addAndCheck and the OpenHands StuckDetector rules.
// Run: npx tsc -b && node scripts/bench-steps-speed.mjs
// Env: LOOPGUARD_BENCH_REPS (default 40), LOOPGUARD_BENCH_CACHE (see bench-steps.mjs).
import os from 'node:os';
import { StepLoopDetector } from '../packages/core/dist/entries/steps.js';
import {
  GEMINI_CLI_CORE_VERSION,
  GeminiPeer,
  loadGeminiLoopDetectionService,
} from './bench/geminiLoopService.mjs';
import { OpenHandsStuckRules } from './bench/openHandsStuckRules.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const REPS = Number(process.env.LOOPGUARD_BENCH_REPS ?? 40);
const TIMED_TURNS = 10;
const HISTORIES = [10, 10_000];

const LoopDetectionService = await loadGeminiLoopDetectionService();
const detectors = [
  { name: 'loopguard', create: () => new StepLoopDetector() },
  {
    name: `gemini-cli ${GEMINI_CLI_CORE_VERSION}`,
    create: () => new GeminiPeer(LoopDetectionService, { keepDetecting: true }),
  },
  { name: 'openhands rules', create: () => new OpenHandsStuckRules() },
];

/** Turn `i` of a stream of new work: every message, command and output is new (no memo hits, no loop). */
function syntheticTurn(i) {
  return [
    {
      type: 'message',
      text: `THOUGHT: I will now look at module ${i} to see how the parser handles quoted fields in row ${i * 3}.`,
    },
    { type: 'action', tool: 'bash', input: `grep -n "def parse_${i}" src/pkg/module_${i}.py | head -20` },
    {
      type: 'observation',
      tool: 'bash',
      output: `${i}: def parse_${i}(self, text):\n${i + 1}:     """Parse one row."""\n${i + 2}:     fields = text.split(',')\n${i + 3}:     return [f.strip() for f in fields]\n`,
    },
  ];
}

/**
 * Real steps of the corpus in order (real sizes: outputs up to 10,000 characters), each text tagged
 * with the turn number so that no text repeats across the replay: no memo hits, no loop.
 */
const corpusSteps = loadCorpus().flatMap((run) => run.steps);
const tagged = (step, i) => {
  if (step.type === 'action') return { ...step, input: `${step.input} #${i}` };
  if (step.type === 'observation') return { ...step, output: `${step.output}\n#${i}` };
  return { ...step, text: `${step.text} #${i}` };
};
const realTurn = (i) => {
  const at = (i * 3) % (corpusSteps.length - 3);
  return corpusSteps.slice(at, at + 3).map((step) => tagged(step, i));
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * ns per observe() of the steps after `history` steps, per step type. Short histories use a fresh
 * instance per repetition; long ones fill one instance per detector once and time REPS rounds on it
 * (the history grows by at most 12 % while measured).
 */
function measure(makeTurn, history) {
  const samples = new Map(
    detectors.map((d) => [d.name, { all: [], message: [], action: [], observation: [] }]),
  );
  const reuse = history >= 1000;
  const instances = new Map();
  const filled = (detector, rep) => {
    if (reuse && instances.has(detector.name)) return instances.get(detector.name);
    const instance = detector.create();
    let turn = 2_000_000 + rep * 100_000;
    for (let fed = 0; fed < history; ) {
      for (const step of makeTurn(turn++)) if (fed++ < history) instance.observe(step);
    }
    instances.set(detector.name, instance);
    return instance;
  };
  for (let rep = 0; rep < REPS; rep++) {
    // detectors interleaved in every repetition, so load on the shared machine hits all alike
    for (const detector of detectors) {
      const instance = filled(detector, rep);
      // the same timed steps at every history length, so only the history differs
      let turn = 1_000_000 + rep * TIMED_TURNS;
      const sample = samples.get(detector.name);
      for (let t = 0; t < TIMED_TURNS; t++) {
        for (const step of makeTurn(turn++)) {
          const start = process.hrtime.bigint();
          instance.observe(step);
          const ns = Number(process.hrtime.bigint() - start);
          sample.all.push(ns);
          sample[step.type].push(ns);
        }
      }
    }
  }
  return samples;
}

const us = (ns) => (ns / 1000).toFixed(2);
console.log(
  `observe() per step in µs (medians, and the mean that includes the slow steps; message/action/observation: medians at 10,000); ${REPS} runs × ${TIMED_TURNS * 3} timed steps per cell`,
);
console.log(
  `node ${process.version}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
for (const [label, makeTurn] of [
  ['new work (synthetic: every text new)', syntheticTurn],
  ['real steps (SWE-bench corpus, replayed)', realTurn],
]) {
  measure(makeTurn, 300); // warm-up: every detector's code optimised before the measured rounds
  const byHistory = HISTORIES.map((history) => measure(makeTurn, history));
  console.log(`### ${label}\n`);
  console.log(
    '| detector | median, 10 steps | median, 10,000 steps | ratio 10k/10 | mean, 10,000 steps | message | action | observation |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const detector of detectors) {
    const [short, long] = byHistory.map((samples) => samples.get(detector.name));
    const m10 = median(short.all);
    const m10k = median(long.all);
    const parts = ['message', 'action', 'observation'].map((type) => us(median(long[type])));
    const mean = long.all.reduce((sum, ns) => sum + ns, 0) / long.all.length;
    const ratio = (m10k / m10).toFixed(2);
    console.log(
      `| ${detector.name} | ${us(m10)} | ${us(m10k)} | ${ratio} | ${us(mean)} | ${parts.join(' | ')} |`,
    );
  }
  console.log('');
}
