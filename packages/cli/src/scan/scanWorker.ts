// A worker thread of `loopguard scan`: reads the transcript files it is given, one at a time, each
// through a fresh step detector with the options of its setup, priced as the calling thread prices
// (see scanPaths).
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { loadScanLibraryCost } from './bundledPriceLibrary.js';
import { SessionScan } from './SessionScan.js';
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

// The pricing library (≈ 20-35 ms to load) loads while the worker waits for its setup, which comes
// after the calling thread has read the options and found the files: a scan prices each reply from
// its model unless `--price` is given. A failure to load shows where the price book is built.
void loadScanLibraryCost().catch(() => undefined);

serveTasks(async ({ options, pricing }: ScanSetup) => {
  const priced = pricing === undefined ? undefined : await scanPricing(pricing);
  const detector = SessionScan.detectorOptions(options);
  return (file: string) => scanFile(file, detector, priced);
});
