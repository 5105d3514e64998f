import {
  defaultStepLoopDetectorOptions,
  parseStepLoopDetectorOptions,
  type StepLoopDetectorOptions,
} from '@loopguard/core/steps';
import { noopLogger } from './noopLogger.js';

/**
 * The detector's options of a project without a configuration file (or with no detector option
 * set), made once, without zod: what {@link parseStepLoopDetectorOptions} gives for `{ logger }`.
 */
export const DEFAULT_DETECTOR_OPTIONS = defaultStepLoopDetectorOptions(noopLogger);

/**
 * The options of a detector that logs nothing (the hooks', a scan's), validated once and frozen
 * (a detector takes them as they are); none set: {@link DEFAULT_DETECTOR_OPTIONS}, without zod (its
 * first use in a thread costs ≈ 10 ms of CPU: a hook call's, each scan thread's).
 * @throws ConfigurationError naming the offending option.
 * @example new StepLoopDetector(quietDetectorOptions({ stopAfter: 3 }));
 */
export function quietDetectorOptions(options: StepLoopDetectorOptions): StepLoopDetectorOptions {
  return Object.keys(options).length === 0
    ? DEFAULT_DETECTOR_OPTIONS
    : parseStepLoopDetectorOptions({ ...options, logger: noopLogger });
}
