// A build of the step detector by its folder, for the benches that compare builds in one run. It
// imports nothing else, so a process that loads one build loads only that one.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The `StepLoopDetector` class of the built `packages/core/dist` (or a copy of one) at `dist`. */
export async function stepDetectorOf(dist) {
  return (await import(pathToFileURL(path.resolve(dist, 'entries/steps.js')).href)).StepLoopDetector;
}

/**
 * The built module `file` (`steps/rules/ChantingRule.js`) of the build at `dist`, or in an older build
 * the file of the same name where it was: at the top of `steps/` (before `steps/` had folders, 0985ac0
 * and older) or in another of its folders (`steps/keys/` came out of `steps/history/` after 80a2086).
 */
export async function stepPartOf(dist, file) {
  const steps = path.resolve(dist, 'steps');
  const folders = existsSync(steps)
    ? readdirSync(steps, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => path.join(steps, e.name))
    : [];
  const found = [path.resolve(dist, file), steps, ...folders]
    .map((f, i) => (i === 0 ? f : path.join(f, path.basename(file))))
    .find((f) => existsSync(f));
  return import(pathToFileURL(found ?? path.resolve(dist, file)).href);
}
