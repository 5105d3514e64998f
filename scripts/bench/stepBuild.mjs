// A build of the step detector by its folder, for the benches that compare builds in one run. It
// imports nothing else, so a process that loads one build loads only that one.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The `StepLoopDetector` class of the built `packages/core/dist` (or a copy of one) at `dist`. */
export async function stepDetectorOf(dist) {
  return (await import(pathToFileURL(path.resolve(dist, 'entries/steps.js')).href)).StepLoopDetector;
}

/**
 * The built module `file` (`steps/rules/ChantingRule.js`) of the build at `dist`, or in a build from
 * before `steps/` had folders (0985ac0 and older) the file of the same name at the top of `steps/`.
 */
export async function stepPartOf(dist, file) {
  const flat = path.join('steps', path.basename(file));
  const found = [file, flat].map((f) => path.resolve(dist, f)).find((f) => existsSync(f));
  return import(pathToFileURL(found ?? path.resolve(dist, file)).href);
}
