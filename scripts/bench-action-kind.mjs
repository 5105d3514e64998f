// The cost of classifying an action (`classifyAction`: what it does to the work, the part of
// `observe()` that reads shell command lines) in two builds, in one process, interleaved: every
// action of the three dev corpora (their inputs as the detector sees them, a shell call's command
// line) and of the scan benchmark's synthetic sessions, classified REPS times by each build; the
// figure is the minimum over the passes, in µs an action.
// Run: npx tsc -b && LOOPGUARD_BENCH_REPS=7 node scripts/bench-action-kind.mjs OLD_DIST [NEW_DIST]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { labelledStepCorpora } from './bench/labelledLoops.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';
import { sessionLines } from './lib/syntheticTranscripts.mjs';

const [oldDist, newDist = 'packages/core/dist'] = process.argv.slice(2);
if (oldDist === undefined) {
  console.error('usage: node scripts/bench-action-kind.mjs OLD_DIST [NEW_DIST]');
  process.exit(2);
}
const reps = Number(process.env.LOOPGUARD_BENCH_REPS ?? 7);
const builds = await Promise.all(
  [oldDist, newDist].map(async (dist) => {
    const load = (file) => import(pathToFileURL(path.resolve(dist, 'steps', file)).href);
    return {
      classifyAction: (await load('actionKind.js')).classifyAction,
      ...(await load('shellCommand.js')),
    };
  }),
);

/** The tool calls of ten synthetic sessions of the scan benchmark (300 calls each, the first with a loop of 40). */
function syntheticActions() {
  const actions = [];
  const lines = [];
  for (let s = 0; s < 10; s++) {
    const loop = s === 0 ? { loopAt: 200, loopLength: 40 } : {};
    lines.push(...sessionLines({ cwd: '/p', start: 0, calls: 300, ...loop }).lines);
  }
  for (const line of lines) {
    const record = JSON.parse(line);
    for (const part of record.message?.content ?? []) {
      if (part.type === 'tool_use') actions.push({ type: 'action', tool: part.name, input: part.input });
    }
  }
  return actions;
}

const sets = [['gemini-3-pro (swe-trajectories-dev)', loadCorpus()], ...labelledStepCorpora()].map(
  ([name, runs]) => [name, runs.flatMap((run) => run.steps.filter((step) => step.type === 'action'))],
);
sets.push(['scan benchmark, synthetic sessions', syntheticActions()]);

console.log(`| actions | count | ${oldDist} | ${newDist} | ratio |\n| --- | --- | --- | --- | --- |`);
for (const [name, steps] of sets) {
  const actions = steps.map((step) => builds[0].canonicalStep(step));
  const best = builds.map(() => Number.POSITIVE_INFINITY);
  for (let rep = 0; rep < reps; rep++) {
    builds.forEach((build, b) => {
      const start = performance.now();
      for (const action of actions) build.classifyAction(action.tool, action.input);
      best[b] = Math.min(best[b], performance.now() - start);
    });
  }
  const [before, after] = best.map((ms) => (ms * 1000) / actions.length);
  console.log(
    `| ${name} | ${actions.length} | ${before.toFixed(3)} µs | ${after.toFixed(3)} µs | ${(after / before).toFixed(3)} |`,
  );
}
