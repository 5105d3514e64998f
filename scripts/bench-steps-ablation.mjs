// What each rule family of the step detector contributes, on each half of the OpenHands + Claude 3.5
// dev split, on the SWE-agent java dev split and on the gemini-3-pro dev runs: the detector is
// replayed once whole and once with each family muted (the rule still sees every event, so its own
// state stays what it is in the product, but its hit is dropped and the next rule is asked), and
// the two are compared run by run. A family whose catches fall in one half only, or all in one
// repository, looks fitted rather than principled (docs/benchmarks.md, "Issue 37 §1, twelfth round").
// The ablations are in bench/ruleAblations.mjs, never in the product: the product has no switch
// per rule.
// Run: npx tsc -b && node scripts/bench-steps-ablation.mjs [--details] [--only name,name]
import os from 'node:os';
import { injectedCases } from './bench/injectLoops.mjs';
import { halfOf, labelledCorpusDir, loadLabelledCorpus } from './bench/labelledLoops.mjs';
import {
  ABLATIONS,
  creator,
  family,
  geminiOutcomes,
  injectedOutcomes,
  median,
  minus,
  namedVerdicts,
  outcomeOff,
  outcomes,
} from './bench/ruleAblations.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const openhands = loadLabelledCorpus(labelledCorpusDir('openhands'));
const java = loadLabelledCorpus(labelledCorpusDir('java'));
const gemini = loadCorpus();
const injected = injectedCases(
  gemini.filter((run) => run.resolved),
  Number(process.env.LOOPGUARD_BENCH_SEED ?? 20251118),
);
const corpora = [
  ['OH even', halfOf(openhands, 'even')],
  ['OH odd', halfOf(openhands, 'odd')],
  ['java', java],
];

// The copied outcome judge with nothing off must give the product's verdicts everywhere.
function checkCopy() {
  const same = (a, b) => JSON.stringify([...a]) === JSON.stringify([...b]);
  const copy = creator(outcomeOff());
  const product = creator(undefined);
  for (const [, corpus] of corpora) {
    const a = outcomes(product, corpus);
    const b = outcomes(copy, corpus);
    if (!same(a.caught, b.caught) || !same(a.falseStops, b.falseStops) || !same(a.hard, b.hard))
      throw new Error('the ablation copy of OutcomeStagnationRule.judge no longer matches the product');
  }
}
checkCopy();

/**
 * Which rule named each stop that caught a labelled loop in the whole detector (outcome stagnation
 * by the ways that held at its hit): `Map(name → count)`.
 */
function attribution(corpus) {
  const named = new Map();
  for (const run of corpus.runs) {
    const loops = corpus.loops.filter((l) => `${l.model}/${l.id}` === run.key);
    if (loops.length === 0) continue;
    const done = new Set();
    for (const { step, action, rule } of namedVerdicts(run.steps)) {
      if (action !== 'stop') continue;
      for (const loop of loops)
        if (!done.has(loop) && step >= loop.certainAt - 2 && step <= loop.loopEnd + 3) {
          done.add(loop);
          named.set(rule, (named.get(rule) ?? 0) + 1);
        }
    }
  }
  return named;
}

const detailsWanted = process.argv.includes('--details');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : new Set(process.argv[onlyAt + 1].split(','));
const full = new Map(corpora.map(([name, corpus]) => [name, outcomes(creator(undefined), corpus)]));
const fullGemini = geminiOutcomes(creator(undefined), gemini);
const fullInjected = injectedOutcomes(creator(undefined), injected);

console.log(
  `Rule families muted one at a time; node ${process.version}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  `whole detector: ${corpora.map(([name, c]) => `${name} ${full.get(name).caught.size}/${c.loops.length} caught, delay ${median([...full.get(name).caught.values()])}, ${full.get(name).falseStops.size} false-stop runs, ${full.get(name).hard.size} hard negatives`).join('; ')}; gemini ${fullGemini.stopped.size} resolved stopped, ${fullGemini.flagged.size} resolved flagged, ${fullInjected.size}/${injected.length} injected loops detected\n`,
);
console.log(
  '| family muted | OH even: caught only by it (repos) | OH odd: caught only by it (repos) | java: only by it | false-stop runs it causes (OH / java) | hard negatives it causes (OH / java) | delay OH even / odd without it | gemini resolved flagged it causes | gemini injected: only by it |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
const details = [];
for (const [name, ablation] of Object.entries(ABLATIONS)) {
  if (only !== undefined && !only.has(name)) continue;
  const cells = [];
  const off = new Map(corpora.map(([label, corpus]) => [label, outcomes(creator(ablation), corpus)]));
  for (const [label] of corpora) {
    const lost = minus(full.get(label).caught.keys(), off.get(label).caught);
    const gained = minus(off.get(label).caught.keys(), full.get(label).caught);
    const repos = [...new Set(lost.map(family))].join(', ');
    cells.push(
      `${lost.length}${repos === '' || label === 'java' ? '' : ` (${repos})`}${gained.length > 0 ? `, masks ${gained.length}` : ''}`,
    );
    if (lost.length + gained.length > 0)
      details.push(`${name} / ${label}: lost ${lost.join(' ')}; gained ${gained.join(' ')}`);
  }
  const oh = ['OH even', 'OH odd'];
  const caused = (field, label) => minus(full.get(label)[field], off.get(label)[field]).length;
  const spared = (field, label) => minus(off.get(label)[field], full.get(label)[field]).length;
  const both = (field, labels) => labels.reduce((n, l) => n + caused(field, l), 0);
  const bothSpared = (field, labels) => labels.reduce((n, l) => n + spared(field, l), 0);
  // "causes N": stops the whole detector makes and the muted one does not; "prevents N": the other way.
  const signed = (field, labels) =>
    `${both(field, labels)}${bothSpared(field, labels) > 0 ? `, prevents ${bothSpared(field, labels)}` : ''}`;
  for (const [label] of corpora)
    for (const field of ['falseStops', 'hard']) {
      const causes = minus(full.get(label)[field], off.get(label)[field]);
      const prevents = minus(off.get(label)[field], full.get(label)[field]);
      if (causes.length + prevents.length > 0)
        details.push(
          `${name} / ${label} ${field}: causes ${causes.join(' ')}; prevents ${prevents.join(' ')}`,
        );
    }
  cells.push(`${signed('falseStops', oh)} / ${signed('falseStops', ['java'])}`);
  cells.push(`${signed('hard', oh)} / ${signed('hard', ['java'])}`);
  cells.push(oh.map((l) => median([...off.get(l).caught.values()])).join(' / '));
  const g = geminiOutcomes(creator(ablation), gemini);
  const gPrevents = minus(g.flagged, fullGemini.flagged);
  cells.push(
    `${minus(fullGemini.flagged, g.flagged).length} (stopped ${minus(fullGemini.stopped, g.stopped).length})${gPrevents.length > 0 ? `, prevents ${gPrevents.length}` : ''}`,
  );
  if (gPrevents.length > 0)
    details.push(`${name} / gemini resolved flagged: prevents ${gPrevents.join(' ')}`);
  const inj = injectedOutcomes(creator(ablation), injected);
  const injLost = minus(fullInjected, inj).length;
  const injGained = minus(inj, fullInjected).length;
  cells.push(`${injLost}${injGained > 0 ? `, masks ${injGained}` : ''}`);
  console.log(`| ${name} | ${cells.join(' | ')} |`);
}
if (detailsWanted) console.log(`\n${details.join('\n')}`);

console.log(
  '\nWhich rule named the stop that caught each loop (the whole detector; outcome stagnation by the ways that held):\n',
);
const named = corpora.map(([label, corpus]) => [label, attribution(corpus)]);
const names = [...new Set(named.flatMap(([, m]) => [...m.keys()]))].sort();
console.log(`| rule | ${named.map(([label]) => label).join(' | ')} |`);
console.log(`| --- | ${named.map(() => '---').join(' | ')} |`);
for (const name of names) console.log(`| ${name} | ${named.map(([, m]) => m.get(name) ?? 0).join(' | ')} |`);
