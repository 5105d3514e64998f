// A worker thread of `loopguard scan`: reads the transcript files it is given, one at a time, each
// through a fresh step detector with the options of its setup, priced as the calling thread prices
// (see scanPaths).
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { type ScanPricingSource, scanPricing } from './scanCost.js';
import { scanFile } from './scanFile.js';
import { serveTasks } from './workerPool.js';

/** What every scan worker is told before its first file. */
export interface ScanSetup {
  /** The step detector's options (the project's `hook` options). */
  options: StepLoopDetectorOptions;
  /** The price book's source; absent: replies are not priced one by one (`--price`). */
  pricing?: ScanPricingSource;
}

serveTasks(async ({ options, pricing }: ScanSetup) => {
  const priced = pricing === undefined ? undefined : await scanPricing(pricing);
  return (file: string) => scanFile(file, options, priced);
});
