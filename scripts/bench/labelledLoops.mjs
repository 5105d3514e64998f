// Scores a detector on a corpus with hand-labelled loops (the SWE-agent java dev split and the
// OpenHands + Claude 3.5 dev split; see their READMEs): one fresh detector per run, after a stop a
// fresh one (the agent restarted). A loop is
// detected when a stop falls in [certainAt - 2, loopEnd + 3]; delay = that stop - certainAt. A false
// stop is a stop outside every labelled loop's [loopStart, loopEnd + 3].
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCorpus } from './stepCorpus.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The labelled dev corpora beside the repo, by short name. */
export const LABELLED_CORPORA = {
  openhands: '../shared/corpora/openhands-claude35-dev',
  java: '../shared/corpora/swe-agent-java-dev',
};

/** $LOOPGUARD_LABELLED_CORPUS, else the named corpus (default: the SWE-agent java split) beside the repo. */
export function labelledCorpusDir(name = 'java') {
  return path.resolve(repoRoot, process.env.LOOPGUARD_LABELLED_CORPUS ?? LABELLED_CORPORA[name]);
}

/**
 * The labelled dev corpora present beside the repo as `[name, runs]` pairs, each run's steps as
 * `loadCorpus` reads them; an absent corpus is said on stderr and left out.
 */
export function labelledStepCorpora() {
  const corpora = [];
  for (const [name, corpus] of [
    ['OpenHands + Claude 3.5 (openhands-claude35-dev)', 'openhands'],
    ['SWE-agent java (swe-agent-java-dev)', 'java'],
  ]) {
    try {
      corpora.push([name, loadCorpus(labelledCorpusDir(corpus))]);
    } catch {
      process.stderr.write(`${name} absent: skipped\n`);
    }
  }
  return corpora;
}

/** The runs (`{ key: model/id, model, id, resolved, steps }`) and labels, or null when the corpus is absent. */
export function loadLabelledCorpus(dir = labelledCorpusDir()) {
  if (!existsSync(path.join(dir, 'index.json'))) return null;
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
  const runs = loadCorpus(dir).map((run, i) => {
    const model = index.runs[i].model;
    return { ...run, model, key: `${model}/${run.id}` };
  });
  const { loops, hardNegatives } = JSON.parse(readFileSync(path.join(dir, 'labels.json'), 'utf8'));
  return { dir, runs, loops, hardNegatives };
}

/**
 * One half of a labelled corpus: its runs at even (`even`) or odd (`odd`) positions in `index.json`,
 * with their loops and hard negatives. Rules are developed looking at the even half's misses and
 * checked on the odd half before they are kept.
 */
export function halfOf(corpus, half) {
  const parity = { even: 0, odd: 1 }[half];
  if (parity === undefined) throw new Error(`half must be even or odd, got ${half}`);
  const keys = new Set(corpus.runs.filter((_, i) => i % 2 === parity).map((run) => run.key));
  const inHalf = (label) => keys.has(`${label.model}/${label.id}`);
  return {
    ...corpus,
    runs: corpus.runs.filter((run) => keys.has(run.key)),
    loops: corpus.loops.filter(inHalf),
    hardNegatives: corpus.hardNegatives.filter(inHalf),
  };
}

/**
 * The half (`A` or `B`) a run falls in by a stable hash of its task id (the first byte of its
 * SHA-256, even or odd): neither its label nor its position, and a task's runs by several models
 * (the java split) in one half, so no task is seen on both sides.
 */
export function hashHalf(taskId) {
  return createHash('sha256').update(taskId).digest()[0] % 2 === 0 ? 'A' : 'B';
}

/** One half of a labelled corpus by {@link hashHalf} of each run's task id, with its loops and hard negatives. */
export function hashHalfOf(corpus, half) {
  if (half !== 'A' && half !== 'B') throw new Error(`half must be A or B, got ${half}`);
  const inHalf = (label) => hashHalf(label.id) === half;
  return {
    ...corpus,
    runs: corpus.runs.filter(inHalf),
    loops: corpus.loops.filter(inHalf),
    hardNegatives: corpus.hardNegatives.filter(inHalf),
  };
}

/** Stops and nudges of one detector over one run, a fresh detector after each stop. */
export function replay(create, steps) {
  let detector = create();
  const stops = [];
  const nudges = [];
  for (let i = 0; i < steps.length; i++) {
    const action = detector.observe(steps[i]);
    if (action === 'nudge') nudges.push(i);
    if (action === 'stop') {
      stops.push(i);
      detector = create();
    }
  }
  return { stops, nudges };
}

const median = (values) => {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((a, b) => a - b);
  return String(sorted[Math.floor((sorted.length - 1) / 2)]);
};
const pct = (n, d) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);

/** An action's identity: its tool and its input, as recorded. */
const actionIdentity = (step) => `${step.tool}\u0000${JSON.stringify(step.input)}`;

/**
 * The earliest stop that waits for the loop's next round after certainty, as steps after
 * `certainAt`: the loop's repeated action (the last action at or before `certainAt` that the loop
 * ran before) run again after `certainAt`, at its result (the step after it when that is an
 * observation). `null` when the loop has no repeated action or never runs it again. A detector that
 * nudges at `certainAt` and stops at the round after the nudge cannot stop sooner; only a nudge
 * before `certainAt` (or a stop without one) can.
 */
export function delayFloor(loop, steps) {
  let identity;
  for (
    let i = Math.min(loop.certainAt, steps.length - 1);
    i >= loop.loopStart && identity === undefined;
    i--
  ) {
    if (steps[i].type !== 'action') continue;
    const candidate = actionIdentity(steps[i]);
    for (let j = loop.loopStart; j < i; j++)
      if (steps[j].type === 'action' && actionIdentity(steps[j]) === candidate) {
        identity = candidate;
        break;
      }
  }
  if (identity === undefined) return null;
  for (let i = loop.certainAt + 1; i < steps.length; i++) {
    if (steps[i].type !== 'action' || actionIdentity(steps[i]) !== identity) continue;
    const result = steps[i + 1]?.type === 'observation' ? i + 1 : i;
    return result - loop.certainAt;
  }
  return null;
}

/**
 * The corpus's delay floor (see {@link delayFloor}): its median over the labelled loops whose
 * repeated action runs again inside their window (`loops`), and how many loops run it again only
 * after `loopEnd + 3` (`late`: they end before their next round, a stop that waits cannot catch them).
 */
export function medianDelayFloor(corpus) {
  const byKey = new Map(corpus.runs.map((run) => [run.key, run]));
  const floors = [];
  let late = 0;
  for (const loop of corpus.loops) {
    const floor = delayFloor(loop, byKey.get(`${loop.model}/${loop.id}`).steps);
    if (floor === null) continue;
    if (loop.certainAt + floor > loop.loopEnd + 3) late++;
    else floors.push(floor);
  }
  return { median: median(floors), loops: floors.length, late };
}

/**
 * Where the caught loops' delays come from, in one line: how many stop at their floor (see
 * {@link delayFloor}), below it (nudged before `certainAt`) or above it (and of those, how many
 * were nudged only after `certainAt`), how many have no floor, and how many more loops at ≤ `target`
 * steps the median needs.
 * @param {Array<{ delay: number, nudge: number | undefined, floor: number | null }>} sources - one per caught loop.
 * @param {number} target - the delay the median should reach (default 8: issue 37's).
 */
export function delaySources(sources, target = 8) {
  const count = (keep) => sources.filter(keep).length;
  const within = count((s) => s.delay <= target);
  // the median is the ((n - 1) / 2)-th smallest delay, rounded down (as `median` takes it)
  const needed = Math.max(0, Math.floor((sources.length - 1) / 2) + 1 - within);
  const above = sources.filter((s) => s.floor !== null && s.delay > s.floor);
  return [
    `${sources.length} caught, ${within} at ≤ ${target} steps`,
    `at their floor ${count((s) => s.floor !== null && s.delay === s.floor)}`,
    `below it ${count((s) => s.floor !== null && s.delay < s.floor)}`,
    `above it ${above.length} (${above.filter((s) => s.nudge !== undefined && s.nudge > 0).length} nudged after certainAt)`,
    `no floor ${count((s) => s.floor === null)}`,
    `the median at ≤ ${target} needs ${needed} more at ≤ ${target}`,
    // what the ladder allows at best: each loop above its floor stopped at it (nudged at certainAt)
    `at ≤ ${target} if none stopped above its floor ${count((s) => Math.min(s.delay, s.floor ?? s.delay) <= target)}`,
  ].join('; ');
}

/**
 * The figures of one detector on a labelled corpus: recall (stops; stops or nudges), by kind,
 * median delay, false stops, hard negatives stopped. `details` lists misses and false stops.
 */
export function scoreLabelled(create, corpus) {
  const byKey = new Map(corpus.runs.map((run) => [run.key, run]));
  const results = new Map(corpus.runs.map((run) => [run.key, replay(create, run.steps)]));
  const row = {};
  const details = { missed: [], falseStops: [], delays: [], sources: [] };
  const kinds = [...new Set(corpus.loops.map((loop) => loop.kind))].sort();
  const delays = [];
  let caught = 0;
  let caughtAny = 0;
  for (const kind of kinds) {
    const ofKind = corpus.loops.filter((loop) => loop.kind === kind);
    let k = 0;
    for (const loop of ofKind) {
      const key = `${loop.model}/${loop.id}`;
      const { stops, nudges } = results.get(key);
      const inWindow = (i) => i >= loop.certainAt - 2 && i <= loop.loopEnd + 3;
      const stop = stops.find(inWindow);
      if (stop !== undefined) {
        k++;
        caught++;
        delays.push(stop - loop.certainAt);
        // Where the delay comes from: the nudge before the stop, and the floor (see delayFloor).
        const nudge = nudges.filter((i) => i < stop).pop();
        const floor = delayFloor(loop, byKey.get(key).steps);
        details.delays.push(
          `${key}@${loop.certainAt}: ${stop - loop.certainAt} (nudge ${nudge === undefined ? '-' : nudge - loop.certainAt}, floor ${floor ?? '-'})`,
        );
        details.sources.push({
          delay: stop - loop.certainAt,
          nudge: nudge === undefined ? undefined : nudge - loop.certainAt,
          floor,
        });
      } else
        details.missed.push(
          `${key} ${loop.kind} certain ${loop.certainAt} (stops ${stops.join(',') || '-'}; nudges ${nudges.join(',') || '-'})`,
        );
      if (stop !== undefined || nudges.some(inWindow)) caughtAny++;
    }
    row[`kind:${kind}`] = `${k}/${ofKind.length}`;
  }
  row.recall = `${pct(caught, corpus.loops.length)} (${caught}/${corpus.loops.length})`;
  row.recallAny = `${pct(caughtAny, corpus.loops.length)} (${caughtAny}/${corpus.loops.length})`;
  row.delay = median(delays);
  let falseStops = 0;
  const runsFalse = new Set();
  const resolvedFalse = new Set();
  let hardStopped = 0;
  for (const [key, { stops }] of results) {
    const run = byKey.get(key);
    const loops = corpus.loops.filter((loop) => `${loop.model}/${loop.id}` === key);
    const negatives = corpus.hardNegatives.filter((neg) => `${neg.model}/${neg.id}` === key);
    for (const stop of stops) {
      if (negatives.some((neg) => stop >= neg.start && stop <= neg.end)) continue;
      if (loops.some((loop) => stop >= loop.loopStart && stop <= loop.loopEnd + 3)) continue;
      falseStops++;
      runsFalse.add(key);
      if (run.resolved) resolvedFalse.add(key);
      details.falseStops.push(`${key} at ${stop}`);
    }
  }
  for (const neg of corpus.hardNegatives) {
    const { stops } = results.get(`${neg.model}/${neg.id}`);
    if (stops.some((stop) => stop >= neg.start && stop <= neg.end)) hardStopped++;
  }
  const resolvedRuns = corpus.runs.filter((run) => run.resolved).length;
  row.falseStops = `${falseStops} in ${runsFalse.size} runs (${pct(runsFalse.size, corpus.runs.length)} of runs)`;
  row.resolvedFalse = `${resolvedFalse.size} of ${resolvedRuns}`;
  row.hardStopped = `${hardStopped} of ${corpus.hardNegatives.length}`;
  let resolvedNudged = 0;
  for (const [key, { stops, nudges }] of results) {
    if (byKey.get(key).resolved && stops.length + nudges.length > 0) resolvedNudged++;
  }
  row.resolvedNudged = `${resolvedNudged} of ${resolvedRuns}`;
  return { row, kinds, details };
}

/**
 * Prints the side-by-side table of `detectors` (`{ name, create }`) on a labelled corpus (or one
 * `half` of it: `even` or `odd`, see {@link halfOf}; `A` or `B`, see {@link hashHalfOf}), or a skip line.
 */
export function printLabelledTable(detectors, { details = false, corpus: name = 'java', half } = {}) {
  const whole = loadLabelledCorpus(labelledCorpusDir(name));
  if (whole === null) {
    console.log(`labelled corpus not found at ${labelledCorpusDir(name)}: skipped`);
    return;
  }
  const byHash = half === 'A' || half === 'B';
  const corpus = half === undefined ? whole : byHash ? hashHalfOf(whole, half) : halfOf(whole, half);
  if (half !== undefined)
    console.log(`The ${half} half (${byHash ? 'by a hash of the task id' : 'by position in index.json'}):`);
  const scored = detectors.map((d) => ({ name: d.name, ...scoreLabelled(d.create, corpus) }));
  const kinds = scored[0].kinds;
  console.log(
    `Labelled loops on ${corpus.dir}: ${corpus.runs.length} runs (${corpus.runs.filter((r) => r.resolved).length} resolved), ${corpus.loops.length} loops, ${corpus.hardNegatives.length} hard negatives\n`,
  );
  const floor = medianDelayFloor(corpus);
  console.log(
    `Delay floor (the loop's repeated action run again after certainAt: a stop at the round after a nudge at certainAt): median ${floor.median} steps over ${floor.loops} of ${corpus.loops.length} loops; ${floor.late} run it again only after loopEnd + 3\n`,
  );
  const lines = [
    ['labelled recall (stop in [certainAt − 2, loopEnd + 3])', 'recall'],
    ...kinds.map((kind) => [`recall, ${kind}`, `kind:${kind}`]),
    ['labelled recall counting nudges', 'recallAny'],
    ['median delay after certainAt (steps)', 'delay'],
    ['false stops (outside every labelled loop)', 'falseStops'],
    ['resolved runs with a false stop', 'resolvedFalse'],
    ['resolved runs with any detection (nudge or stop)', 'resolvedNudged'],
    ['hard negatives stopped', 'hardStopped'],
  ];
  console.log(`| figure | ${scored.map((s) => s.name).join(' | ')} |`);
  console.log(`| --- | ${scored.map(() => '---').join(' | ')} |`);
  for (const [label, key] of lines)
    console.log(`| ${label} | ${scored.map((s) => s.row[key]).join(' | ')} |`);
  if (!details) return;
  for (const s of scored) {
    console.log(
      `\n## ${s.name}\nmissed:\n  ${s.details.missed.join('\n  ')}\nfalse stops:\n  ${s.details.falseStops.join('\n  ')}\ndelays:\n  ${s.details.delays.join('\n  ')}\ndelay sources: ${delaySources(s.details.sources)}`,
    );
  }
}
