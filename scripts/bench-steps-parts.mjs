// What the largest passes of StepLoopDetector.observe() cost a step, measured outside the CPU
// profiler (which undercounts them: its samples fall into whatever the hot loops were inlined into).
// For one build, over every run of the three dev corpora: a whole replay (a fresh detector per run,
// and after each stop), then each pass alone over every text of its kind, in the same process and
// taking turns: the output's fingerprint (every output, as a probe's: with its result; the replay
// remembers repeated outputs, so this is a slight overcount), the chanting rule (every message) and
// the action's key and kind (every action's text; the replay remembers the 32 latest). Each figure is
// the least CPU time (every thread's) over REPS passes, per step of the corpus: on a shared machine
// CPU time leaves out the time waiting for a core, which a whole pass's wall clock does not.
// Run: npx tsc -b && node scripts/bench-steps-parts.mjs [DIST]   (default packages/core/dist)
// Env: LOOPGUARD_BENCH_REPS (default 7).
import { labelledStepCorpora } from './bench/labelledLoops.mjs';
import { stepDetectorOf, stepPartOf } from './bench/stepBuild.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const REPS = Number(process.env.LOOPGUARD_BENCH_REPS ?? 7);
const dist = process.argv[2] ?? 'packages/core/dist';
const Detector = await stepDetectorOf(dist);
const { fingerprint } = await stepPartOf(dist, 'steps/keys/fingerprint.js');
const { ChantingRule } = await stepPartOf(dist, 'steps/rules/ChantingRule.js');
const { actionKey } = await stepPartOf(dist, 'steps/keys/stepKeys.js');
const { actionText } = await stepPartOf(dist, 'steps/actions/inputText.js');
const { classifyAction } = await stepPartOf(dist, 'steps/actions/actionKind.js');
const NO_ECHO = new Set();

/** The CPU time of `work` in µs (user and system, every thread). */
function cpuUs(work) {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const corpora = [['gemini-3-pro (swe-trajectories-dev)', loadCorpus()], ...labelledStepCorpora()];
console.log(
  '| corpus | steps | replay µs a step | fingerprint µs a step (share) | chanting µs a step (share) | action key and kind µs a step (share) |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [name, runs] of corpora) {
  const steps = runs.flatMap((run) => run.steps);
  const outputs = steps.filter((s) => s.type === 'observation').map((s) => String(s.output ?? ''));
  const chanting = new ChantingRule(10, 0.5);
  const messages = steps
    .filter((s) => s.type === 'message')
    .map((s, i) => ({ kind: 'message', message: { step: i, text: s.text, evidence: { step: i } } }));
  const actions = steps
    .filter((s) => s.type === 'action')
    .map((s) => ({ tool: s.tool, input: s.input, text: actionText(s.input) }));
  const passes = {
    replay: () => {
      for (const run of runs) {
        let detector = new Detector();
        for (const step of run.steps) if (detector.observe(step).action === 'stop') detector = new Detector();
      }
    },
    fingerprint: () => {
      for (const output of outputs) fingerprint(output, NO_ECHO, true);
    },
    chanting: () => {
      for (const event of messages) chanting.judge(event);
    },
    action: () => {
      for (const { tool, input, text } of actions) {
        actionKey(tool, text, input);
        classifyAction(tool, input);
      }
    },
  };
  const least = Object.fromEntries(Object.keys(passes).map((key) => [key, Number.POSITIVE_INFINITY]));
  for (let rep = 0; rep < REPS; rep++) {
    for (const [key, pass] of Object.entries(passes)) least[key] = Math.min(least[key], cpuUs(pass));
  }
  const perStep = (us) => us / steps.length;
  const part = (key) =>
    `${perStep(least[key]).toFixed(2)} (${((100 * least[key]) / least.replay).toFixed(0)} %)`;
  console.log(
    `| ${name} | ${steps.length} | ${perStep(least.replay).toFixed(2)} | ${part('fingerprint')} | ${part('chanting')} | ${part('action')} |`,
  );
}
