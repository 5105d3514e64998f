import { type Clock, checkedClock, systemClock } from '../kernel/clock.js';
import { parseOptions } from '../kernel/parseOptions.js';
import type { DetectionOptions } from './loopDetection.js';
import { type LoopDetectorOptions, loopDetectorOptionsSchema } from './loopDetectorOptions.js';
import type { TaskCycleOptions } from './taskCycle.js';

/** The per-task budget when none is configured (see `maxAttemptsPerTask`): at least 20 attempts. */
export const DEFAULT_ATTEMPTS_PER_TASK = 20;

/** The options in force in a runner, defaults applied (the ports, clock and logger aside). */
export type ResolvedDetectorOptions = Readonly<
  Required<Omit<LoopDetectorOptions, 'attemptStore' | 'clock' | 'logger'>>
>;

/** What both runners derive from their options, once. */
export interface DetectorSettings {
  /** The options in force, frozen. */
  options: ResolvedDetectorOptions;
  /** What the rules and the recovery planning read. */
  detection: DetectionOptions;
  /** What the cross-task cycle rule reads; `null` when `cycleRounds` is `null` (off). */
  cycle: TaskCycleOptions | null;
  /** The clock, checked on every read. */
  clock: Clock;
  /** The options as parsed, for what only one runner reads (`attemptStore`, `logger`). */
  parsed: ReturnType<typeof parseDetectorOptions>;
}

function parseDetectorOptions(options: LoopDetectorOptions, name: string) {
  return parseOptions(loopDetectorOptionsSchema, options, `${name} options`);
}

/**
 * Parses and freezes a runner's options (`name` prefixes configuration errors).
 * @throws ConfigurationError naming the option out of range.
 */
export function detectorSettings(options: LoopDetectorOptions, name: string): DetectorSettings {
  const parsed = parseDetectorOptions(options, name);
  const budget =
    parsed.maxAttemptsPerTask === undefined
      ? Math.max(DEFAULT_ATTEMPTS_PER_TASK, parsed.maxAttemptsBeforeForceNext)
      : parsed.maxAttemptsPerTask;
  const resolved: ResolvedDetectorOptions = Object.freeze({
    maxAttempts: parsed.maxAttempts,
    attemptWindow: parsed.attemptWindow,
    enableAutoUnblock: parsed.enableAutoUnblock,
    maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
    maxEvidence: parsed.maxEvidence,
    pruneEvery: parsed.pruneEvery,
    pruneBatchSize: parsed.pruneBatchSize,
    sharedStorage: parsed.sharedStorage,
    cycleRounds: parsed.cycleRounds,
    maxCycleTasks: parsed.maxCycleTasks,
    blockerSignatures: parsed.blockerSignatures,
    maxAttemptsPerTask: budget,
  });
  return {
    options: resolved,
    detection: {
      maxAttempts: parsed.maxAttempts,
      maxAttemptsBeforeForceNext: parsed.maxAttemptsBeforeForceNext,
      enableAutoUnblock: parsed.enableAutoUnblock,
      attemptWindow: parsed.attemptWindow,
      maxEvidence: parsed.maxEvidence,
      blockerSignatures: parsed.blockerSignatures,
      maxAttemptsPerTask: budget,
    },
    cycle:
      parsed.cycleRounds === null
        ? null
        : {
            cycleRounds: parsed.cycleRounds,
            maxCycleTasks: parsed.maxCycleTasks,
            blockerSignatures: parsed.blockerSignatures,
          },
    clock: checkedClock(parsed.clock ?? systemClock, 'options.clock'),
    parsed,
  };
}
