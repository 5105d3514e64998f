// A build of the step detector by its folder, for the benches that compare builds in one run. It
// imports nothing else, so a process that loads one build loads only that one.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The `StepLoopDetector` class of the built `packages/core/dist` (or a copy of one) at `dist`. */
export async function stepDetectorOf(dist) {
  return (await import(pathToFileURL(path.resolve(dist, 'entries/steps.js')).href)).StepLoopDetector;
}
