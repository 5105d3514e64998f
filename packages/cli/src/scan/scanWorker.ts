// A worker thread of `loopguard scan`: reads the transcript files it is given, one at a time, each
// through a fresh step detector with the options in its `workerData` (see scanPaths).
import { workerData } from 'node:worker_threads';
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { scanFile } from './scanFile.js';
import { serveTasks } from './workerPool.js';

const options = workerData as StepLoopDetectorOptions;
serveTasks((file: string) => scanFile(file, options));
