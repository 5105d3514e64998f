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
import { labelledCorpusDir } from './bench/labelledLoops.mjs';
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
 * Real steps of a corpus in order (real sizes: outputs up to 10,000 characters and more), each text
 * tagged with the turn number so that no text repeats across the replay: no memo hits, no loop.
 */
const tagged = (step, i) => {
  if (step.type === 'action') return { ...step, input: `${step.input} #t${i}` };
  if (step.type === 'observation') return { ...step, output: `${step.output}\nturn t${i}` };
  return { ...step, text: `${step.text} #t${i}` };
};
const realTurns = (corpusSteps) => (i) => {
  const at = (i * 3) % (corpusSteps.length - 3);
  return corpusSteps.slice(at, at + 3).map((step) => tagged(step, i));
};
/** The real streams, replayed untouched in order (loops and all): the mean cost per step of a real run. */
const corpora = [['gemini-3-pro (swe-trajectories-dev)', loadCorpus()]];
try {
  corpora.push(['SWE-agent java (swe-agent-java-dev)', loadCorpus(labelledCorpusDir())]);
} catch {
  process.stderr.write('labelled corpus absent: its rows are skipped\n');
}

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
  ...corpora.map(([name, runs]) => [
    `real steps (${name}, tagged so that no text repeats)`,
    realTurns(runs.flatMap((r) => r.steps)),
  ]),
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

// The real streams as they are: every run replayed in order into a fresh detector, timing every
// observe(). This is the mean per step a user meets (loops included; after a stop, a fresh detector).
console.log('### whole runs replayed as recorded (mean µs per observe(), all steps of all runs)\n');
console.log(
  `| corpus | ${detectors.map((d) => d.name).join(' | ')} | loopguard vs gemini-cli | loopguard vs openhands |`,
);
console.log(`| --- | ${detectors.map(() => '---').join(' | ')} | --- | --- |`);
for (const [name, runs] of corpora) {
  const totals = new Map(detectors.map((d) => [d.name, { ns: 0, steps: 0 }]));
  for (let rep = 0; rep < 3; rep++) {
    for (const run of runs) {
      for (const detector of detectors) {
        let instance = detector.create();
        const total = totals.get(detector.name);
        for (const step of run.steps) {
          const start = process.hrtime.bigint();
          const verdict = instance.observe(step);
          total.ns += Number(process.hrtime.bigint() - start);
          total.steps++;
          if ((verdict?.action ?? verdict) === 'stop') instance = detector.create();
        }
      }
    }
  }
  const means = detectors.map((d) => totals.get(d.name).ns / totals.get(d.name).steps);
  console.log(
    `| ${name} | ${means.map(us).join(' | ')} | ${(means[0] / means[1]).toFixed(2)}× | ${(means[0] / means[2]).toFixed(2)}× |`,
  );
}
