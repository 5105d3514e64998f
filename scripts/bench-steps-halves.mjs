// Does each rule of the step detector generalise? Every dev corpus (the OpenHands + Claude 3.5 and
// SWE-agent java labelled splits, the gemini-3-pro runs and their injected loops) is cut into two
// halves by a stable hash of each run's task id (`hashHalf`: not by label, not by position, so not
// the even half the rules were developed on), and each rule is scored on each half twice: what it
// named (the whole detector, each stop and nudge credited to the rule whose hit made it) and what
// only it catches (the rule muted, as bench-steps-ablation.mjs mutes it). A rule whose catches of its
// own sit in a handful of runs, or in one half only, pays where it was tuned: a tuning risk.
// Run: npx tsc -b && node scripts/bench-steps-halves.mjs [--named-only]
import os from 'node:os';
import { injectedCases } from './bench/injectLoops.mjs';
import { hashHalf, hashHalfOf, labelledCorpusDir, loadLabelledCorpus } from './bench/labelledLoops.mjs';
import {
  ABLATIONS,
  creator,
  geminiOutcomes,
  injectedOutcomes,
  minus,
  namedVerdicts,
  outcomes,
} from './bench/ruleAblations.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const HALVES = ['A', 'B'];
const openhands = loadLabelledCorpus(labelledCorpusDir('openhands'));
const java = loadLabelledCorpus(labelledCorpusDir('java'));
const gemini = loadCorpus();
if (openhands === null || java === null) {
  console.log('a labelled dev corpus is absent beside the repo: skipped');
  process.exit(0);
}
const injected = injectedCases(
  gemini.filter((run) => run.resolved),
  Number(process.env.LOOPGUARD_BENCH_SEED ?? 20251118),
);
const labelled = [
  ['OH', openhands],
  ['java', java],
].flatMap(([name, corpus]) => HALVES.map((half) => [`${name} ${half}`, hashHalfOf(corpus, half)]));
const geminiHalves = HALVES.map((half) => [
  `gemini ${half}`,
  gemini.filter((run) => hashHalf(run.id) === half),
]);
const injectedHalves = HALVES.map((half) => [
  `injected ${half}`,
  injected.filter((c) => hashHalf(c.run) === half),
]);

console.log(
  `Halves by a hash of the task id; node ${process.version}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  [
    ...labelled.map(
      ([name, c]) =>
        `${name}: ${c.runs.length} runs, ${c.loops.length} loops, ${c.hardNegatives.length} hard negatives`,
    ),
    ...geminiHalves.map(
      ([name, runs]) => `${name}: ${runs.length} runs (${runs.filter((r) => r.resolved).length} resolved)`,
    ),
    ...injectedHalves.map(([name, cases]) => `${name}: ${cases.length} loops`),
  ].join('; '),
);

/** A tally of rule → the runs it appears in (a count of events and the set of run keys). */
class Tally {
  rows = new Map();
  add(rule, run) {
    const row = this.rows.get(rule) ?? { n: 0, runs: new Set() };
    row.n++;
    row.runs.add(run);
    this.rows.set(rule, row);
  }
  cell(rule) {
    const row = this.rows.get(rule);
    return row === undefined ? '0' : `${row.n} (${row.runs.size} runs)`;
  }
}

/** What each rule named on one labelled half: loops it stopped, stops outside loops, hard negatives stopped. */
function namedOnLabelled(corpus) {
  const caught = new Tally();
  const wrong = new Tally();
  for (const run of corpus.runs) {
    const verdicts = namedVerdicts(run.steps);
    const stops = verdicts.filter((v) => v.action === 'stop');
    const loops = corpus.loops.filter((l) => `${l.model}/${l.id}` === run.key);
    const negatives = corpus.hardNegatives.filter((n) => `${n.model}/${n.id}` === run.key);
    for (const loop of loops) {
      const stop = stops.find((v) => v.step >= loop.certainAt - 2 && v.step <= loop.loopEnd + 3);
      if (stop !== undefined) caught.add(stop.rule, run.key);
    }
    for (const stop of stops) {
      const inNegative = negatives.some((n) => stop.step >= n.start && stop.step <= n.end);
      const inLoop = loops.some((l) => stop.step >= l.loopStart && stop.step <= l.loopEnd + 3);
      if (inNegative || !inLoop) wrong.add(stop.rule, run.key);
    }
  }
  return { caught, wrong };
}

/** What each rule named on one gemini half: resolved runs nudged or stopped, and the injected loops it detected first. */
function namedOnGemini(runs, cases) {
  const flagged = new Tally();
  for (const run of runs.filter((r) => r.resolved))
    for (const v of namedVerdicts(run.steps)) flagged.add(`${v.rule} (${v.action})`, run.id);
  const caught = new Tally();
  for (const c of cases) {
    const first = namedVerdicts(c.steps).find((v) => v.step >= c.start);
    if (first !== undefined && first.step <= c.end) caught.add(first.rule, `${c.run}/${c.kind}`);
  }
  return { flagged, caught };
}

const namedLabelled = labelled.map(([name, corpus]) => [name, namedOnLabelled(corpus)]);
const namedGemini = HALVES.map((half, i) => [half, namedOnGemini(geminiHalves[i][1], injectedHalves[i][1])]);
const rules = [
  ...new Set([
    ...namedLabelled.flatMap(([, t]) => [...t.caught.rows.keys(), ...t.wrong.rows.keys()]),
    ...namedGemini.flatMap(([, t]) => [...t.caught.rows.keys()]),
  ]),
].sort();
console.log('\nWhat each rule named (the whole detector; a stop credited to the rule whose hit made it):\n');
console.log(
  `| rule | ${namedLabelled.map(([n]) => `${n}: loops stopped`).join(' | ')} | ${namedGemini.map(([h]) => `injected ${h}: detected first`).join(' | ')} | stops outside loops or in hard negatives (${namedLabelled.map(([n]) => n).join(' / ')}) |`,
);
console.log(`| --- | ${[...namedLabelled, ...namedGemini, 0].map(() => '---').join(' | ')} |`);
for (const rule of rules)
  console.log(
    `| ${rule} | ${namedLabelled.map(([, t]) => t.caught.cell(rule)).join(' | ')} | ${namedGemini.map(([, t]) => t.caught.cell(rule)).join(' | ')} | ${namedLabelled.map(([, t]) => t.wrong.rows.get(rule)?.n ?? 0).join(' / ')} |`,
  );
const geminiFlags = namedGemini.flatMap(([half, t]) =>
  [...t.flagged.rows].map(([rule, row]) => `${half}: ${rule} in ${[...row.runs].join(', ')}`),
);
console.log(`\ngemini-3-pro resolved runs nudged or stopped: ${geminiFlags.join('; ') || 'none'}`);

if (process.argv.includes('--named-only')) process.exit(0);

// What only each rule catches: the whole detector against one with the rule muted, half by half.
const full = new Map(labelled.map(([name, corpus]) => [name, outcomes(creator(undefined), corpus)]));
const fullGemini = new Map(
  geminiHalves.map(([name, runs]) => [name, geminiOutcomes(creator(undefined), runs)]),
);
const fullInjected = new Map(
  injectedHalves.map(([name, cases]) => [name, injectedOutcomes(creator(undefined), cases)]),
);
const runOf = (loopKey) => loopKey.split('@')[0];
console.log('\nWhat only each rule catches (the rule muted; loops lost, in how many runs):\n');
console.log(
  `| rule muted | ${labelled.map(([n]) => `${n}: lost`).join(' | ')} | ${injectedHalves.map(([n]) => `${n}: lost`).join(' | ')} | false-stop runs + hard negatives it causes (${labelled.map(([n]) => n).join(' / ')}) | gemini resolved flagged it causes (A / B) | its own catches |`,
);
console.log(`| --- | ${[...labelled, ...injectedHalves, 0, 0, 0].map(() => '---').join(' | ')} |`);
const risks = [];
for (const [name, ablation] of Object.entries(ABLATIONS)) {
  const create = creator(ablation);
  const cells = [];
  const ownRuns = new Map();
  const caused = [];
  for (const [label, corpus] of labelled) {
    const off = outcomes(create, corpus);
    const whole = full.get(label);
    const lost = minus(whole.caught.keys(), off.caught);
    const runs = new Set(lost.map(runOf));
    // a run by its corpus and task (the java split's runs also by their model)
    for (const run of runs)
      ownRuns.set(
        `${label.split(' ')[0]} ${label.startsWith('OH') ? run.split('/').pop() : run}`,
        label.split(' ')[1],
      );
    cells.push(lost.length === 0 ? '0' : `${lost.length} (${runs.size} runs)`);
    caused.push(minus(whole.falseStops, off.falseStops).length + minus(whole.hard, off.hard).length);
  }
  for (const [label, cases] of injectedHalves) {
    const lost = minus(fullInjected.get(label), injectedOutcomes(create, cases));
    cells.push(String(lost.length));
  }
  cells.push(caused.join(' / '));
  cells.push(
    geminiHalves
      .map(
        ([label, runs]) => minus(fullGemini.get(label).flagged, geminiOutcomes(create, runs).flagged).length,
      )
      .join(' / '),
  );
  const halvesHit = new Set(ownRuns.values());
  const risk =
    ownRuns.size === 0
      ? 'none on a labelled corpus'
      : ownRuns.size <= 2 || halvesHit.size === 1
        ? `tuning risk: ${ownRuns.size} run${ownRuns.size === 1 ? '' : 's'}, half ${[...halvesHit].sort().join(' and ')}`
        : `${ownRuns.size} runs, both halves`;
  if (risk.startsWith('tuning risk')) risks.push(`${name} (${[...ownRuns.keys()].join(', ')})`);
  cells.push(risk);
  console.log(`| ${name} | ${cells.join(' | ')} |`);
}
console.log(
  `\nTuning risks (own catches in ≤ 2 labelled runs or in one half only): ${risks.join('; ') || 'none'}`,
);
