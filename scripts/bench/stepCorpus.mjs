// Loads the step corpus (SWE-bench trajectories as step streams; see its README).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The corpus directory: $LOOPGUARD_STEP_CORPUS, else ../shared/corpora/swe-trajectories-dev beside the repo. */
export function corpusDir() {
  return path.resolve(
    repoRoot,
    process.env.LOOPGUARD_STEP_CORPUS ?? '../shared/corpora/swe-trajectories-dev',
  );
}

/** Every run of the corpus: `{ id, resolved, steps }`, in index order. */
export function loadCorpus(dir = corpusDir()) {
  let index;
  try {
    index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the step corpus at ${dir} (set LOOPGUARD_STEP_CORPUS): ${error.message}`);
  }
  return index.runs.map((run) => ({
    id: run.id,
    resolved: run.resolved,
    steps: readFileSync(path.join(dir, run.file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line)),
  }));
}
