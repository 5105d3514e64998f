// The builds named on a bench's command line, their step detectors and the three dev corpora: the
// start of every bench that compares builds of the step detector in one run.
import { labelledStepCorpora } from './labelledLoops.mjs';
import { stepDetectorOf } from './stepBuild.mjs';
import { loadCorpus } from './stepCorpus.mjs';

/**
 * The `dist` folders given after the script's name (`process.argv`), each build's `StepLoopDetector`
 * (loaded in order) and the corpora as `[name, runs]`; with no folder, `usage` on stderr and exit 2.
 */
export async function buildsCompared(usage) {
  const builds = process.argv.slice(2);
  if (builds.length === 0) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  const detectors = [];
  for (const dist of builds) detectors.push(await stepDetectorOf(dist));
  const corpora = [['gemini-3-pro (swe-trajectories-dev)', loadCorpus()], ...labelledStepCorpora()];
  return { builds, detectors, corpora };
}
