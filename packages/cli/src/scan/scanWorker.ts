// A worker thread of `loopguard scan`: reads the transcript files it is given, one at a time, each
// through a fresh step detector with the options in its `workerData`, priced as the calling thread
// prices (see scanPaths).
import { workerData } from 'node:worker_threads';
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { type ScanPricingSource, scanPricing } from './scanCost.js';
import { scanFile } from './scanFile.js';
import { serveTasks } from './workerPool.js';

const { options, pricing } = workerData as { options: StepLoopDetectorOptions; pricing?: ScanPricingSource };
const priced = pricing === undefined ? undefined : await scanPricing(pricing);
serveTasks((file: string) => scanFile(file, options, priced));
