// One pass over every run of one dev corpus into one build, as a cold process pays it (a fresh
// detector per run and after each stop), or no pass (`none`): the process that
// bench-steps-instructions.mjs counts under callgrind.
// Run: node scripts/bench/stepOnePass.mjs DIST gemini|openhands|java|none
import { labelledCorpusDir } from './labelledLoops.mjs';
import { stepDetectorOf } from './stepBuild.mjs';
import { loadCorpus } from './stepCorpus.mjs';

const [dist, corpus] = process.argv.slice(2);
const Detector = await stepDetectorOf(dist);
// Every corpus is loaded whichever is replayed, so that `none` loads what a replay loads.
const corpora = {
  gemini: loadCorpus(),
  openhands: loadCorpus(labelledCorpusDir('openhands')),
  java: loadCorpus(labelledCorpusDir('java')),
};
let stops = 0;
for (const run of corpora[corpus] ?? []) {
  let detector = new Detector();
  for (const step of run.steps) {
    if (detector.observe(step).action === 'stop') {
      stops++;
      detector = new Detector();
    }
  }
}
console.log(`${corpus}: ${stops} stops`);
