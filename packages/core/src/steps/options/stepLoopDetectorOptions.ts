import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../../kernel/clock.js';
import { clockSchema, lazySchema, loggerSchema, portSchema } from '../../kernel/optionSchemas.js';
import { parseOptions } from '../../kernel/parseOptions.js';
import type { StateMachine } from '../../storage/ports.js';
import { DEFAULT_EXEMPT_COMMANDS, DEFAULT_EXEMPT_TOOLS } from '../actions/exemptions.js';

/** Longest periodic pattern tracked (cycle length): see docs/step-detector.md for why 16. */
export const MAX_TRACKED_PERIOD = 16;

/** Options of {@link StepLoopDetector}; every threshold has a documented default. */
export interface StepLoopDetectorOptions {
  /**
   * Per-run switch: `false` makes `observe` return `continue` and record nothing.
   * @default true
   */
  enabled?: boolean;
  /**
   * The same action with the same outcome (non-failure), with nothing learned between, that make a
   * `repeated_action` loop (or `growing_output` when the output only accumulated). Integer ≥ 2.
   * @default 3
   */
  repeatThreshold?: number;
  /**
   * Failures of one class (first error line without digits or echoed command words), with nothing
   * learned between, that make a `same_error` loop, whether one command or several. Integer ≥ 2.
   * @default 3
   */
  sameErrorThreshold?: number;
  /**
   * The same action with the same result (a failure: the same error class) this many times in a row,
   * with nothing between but messages, makes a `repeated_action` or `same_error` loop even below
   * `repeatThreshold` / `sameErrorThreshold`. Integer ≥ 2.
   * @default 3
   */
  verbatimThreshold?: number;
  /**
   * The same change (an edit, a file write) with the same result this many times in a row makes a
   * loop: applying one change again achieves nothing the first did not, so it is certain sooner than
   * a re-run or a re-read (`verbatimThreshold`). Integer ≥ 2.
   * @default 2
   */
  verbatimChangeThreshold?: number;
  /**
   * Near-duplicate actions with one outcome, with nothing learned between, that make a
   * `near_duplicate` loop. Integer ≥ 2.
   * @default 3
   */
  nearDuplicateThreshold?: number;
  /**
   * Least estimated Jaccard similarity of two actions' word sets (digits left out) for them to be
   * near-duplicates. 0 < similarity ≤ 1.
   * @default 0.5
   */
  nearDuplicateSimilarity?: number;
  /**
   * Stale turns with one (non-failure) outcome, whatever their actions, that make a `stagnation` loop.
   * Integer ≥ 2.
   * @default 4
   */
  sameOutcomeThreshold?: number;
  /**
   * Stale turns in a row (nothing new learned), whatever their actions and outcomes, that make a
   * `stagnation` loop. Integer ≥ 2.
   * @default 8
   */
  staleTurnThreshold?: number;
  /**
   * Runs of one probe (a command run again to see whether a change worked: the same command line,
   * `cd` prefixes left out) with one normalised result, with changes to the code between them, that
   * make an `outcome_stagnation` loop. Integer ≥ 2.
   * @default 3
   */
  probeRepeats?: number;
  /**
   * The ceiling of outcome stagnation: rounds in a row of a change followed by the same probe result
   * (or one the probe gave before), whatever was read or tried between, that make an
   * `outcome_stagnation` loop. Integer ≥ 2.
   * @default 3
   */
  probeCeiling?: number;
  /**
   * The verdict ceiling of outcome stagnation: rounds in a row of a change followed by a probe run
   * with the same key lines (the final error or assertion, the failing tests, the runner's summary),
   * whatever else its output printed and whatever was read or tried between, that make an
   * `outcome_stagnation` loop. The debug output the agent added to the code under test appearing
   * starts the count again. Integer ≥ 2.
   * @default 4
   */
  probeVerdictCeiling?: number;
  /**
   * Rejected replies (no action before an observation, an empty action, an empty message), with
   * nothing learned between, that make a `rejected_turn` loop. Integer ≥ 2.
   * @default 3
   */
  rejectedThreshold?: number;
  /**
   * Rejected replies in a row that turn the `rejected_turn` nudge into a stop. The harness answers
   * each rejected reply itself, so the stop waits for an agent that cannot produce a valid reply at
   * all. Integer ≥ 2, at least `rejectedThreshold + 1`.
   * @default 10
   */
  rejectedStopThreshold?: number;
  /**
   * Full A-B repetitions that make an `oscillation` (2 = A, B, A, B). Integer ≥ 2.
   * @default 2
   */
  oscillationRepeats?: number;
  /**
   * Full repetitions of a cycle of 3..`maxCycleLength` turns that make a `cycle` (2 = A, B, C, A, B, C).
   * Integer ≥ 2.
   * @default 2
   */
  cycleRepeats?: number;
  /**
   * Longest cycle looked for. Integer 3..16 (the history tracks periods up to 16).
   * @default 10
   */
  maxCycleLength?: number;
  /**
   * Identical messages, with no fresh turn between, that make a `repeated_message` loop. Integer ≥ 2.
   * @default 3
   */
  messageRepeatThreshold?: number;
  /**
   * Least word-set Jaccard similarity (digits left out) of two near-duplicate messages. 0 < similarity ≤ 1.
   * @default 0.8
   */
  messageSimilarity?: number;
  /**
   * Occurrences of one line or sentence in a message still streaming ({@link StepLoopDetector.observePartial})
   * that make it certain chanting: a `stop`. Integer ≥ 2.
   * @default 20
   */
  streamChantRepeats?: number;
  /**
   * Occurrences of one line or sentence inside one message that make `chanting`. Integer ≥ 2.
   * @default 10
   */
  chantRepeats?: number;
  /**
   * Least share of the message's prose (by characters) that its chanted segments (each repeated at
   * least `chantRepeats` times in one uninterrupted run: a repeated block counts whole) must cover.
   * 0 < share ≤ 1.
   * @default 0.5
   */
  chantShare?: number;
  /**
   * Rule hits after the nudge (at later steps), with nothing learned, that turn the nudge into a stop.
   * Integer ≥ 1.
   * @default 1
   */
  stopAfter?: number;
  /**
   * Tools whose actions never count (and whose observations are skipped).
   * @default ['BashOutput', 'sleep', 'wait']
   */
  exemptTools?: readonly string[];
  /**
   * Patterns tested against each command of an action's shell command line (split at `;`, `&&`,
   * `||`, `|`, `&`, line ends), else against its JSON: the action and its observation are exempt
   * when every command matches one (`sleep 2; cat missing.txt` is judged).
   * @default DEFAULT_EXEMPT_COMMANDS (sleep, watch, wait, tail -f, gh run watch|view, gh pr checks, kubectl rollout status|wait)
   */
  exemptCommands?: readonly RegExp[];
  /**
   * Most steps kept as a verdict's evidence.
   * @default 10
   */
  maxEvidence?: number;
  /**
   * Where nudges and stops are recorded as context entries (`loop_nudge`, `loop_stop`). Needs `taskId`.
   * @default undefined (nothing recorded)
   */
  stateMachine?: StateMachine;
  /** The task the run works on; entries name it in `related_tasks`. @default undefined */
  taskId?: string;
  /** The run's id, stored in each entry's metadata. @default undefined */
  runId?: string;
  /** Source of time. @default systemClock */
  clock?: Clock;
  /** pino logger; the detector logs through `logger.child({ component: 'StepLoopDetector' })`. @default silent */
  logger?: Logger;
}

/**
 * The defaults of {@link StepLoopDetectorOptions}, in one place: the schema's defaults, and what
 * {@link defaultStepLoopDetectorOptions} gives without zod (a test holds it equal to validating `{}`).
 */
const DEFAULTS = {
  enabled: true,
  repeatThreshold: 3,
  sameErrorThreshold: 3,
  verbatimThreshold: 3,
  verbatimChangeThreshold: 2,
  nearDuplicateThreshold: 3,
  nearDuplicateSimilarity: 0.5,
  sameOutcomeThreshold: 4,
  staleTurnThreshold: 8,
  probeRepeats: 3,
  probeCeiling: 3,
  probeVerdictCeiling: 4,
  rejectedThreshold: 3,
  rejectedStopThreshold: 10,
  oscillationRepeats: 2,
  cycleRepeats: 2,
  maxCycleLength: 10,
  messageRepeatThreshold: 3,
  messageSimilarity: 0.8,
  streamChantRepeats: 20,
  chantRepeats: 10,
  chantShare: 0.5,
  stopAfter: 1,
  exemptTools: DEFAULT_EXEMPT_TOOLS,
  exemptCommands: DEFAULT_EXEMPT_COMMANDS,
  maxEvidence: 10,
} as const;

/**
 * zod schema of {@link StepLoopDetectorOptions}; unknown keys are rejected so that typos surface.
 * Made on first use (`lazySchema`): a hook call of a project without a configuration file validates
 * no options.
 */
export const stepLoopDetectorOptionsSchema = lazySchema(() => {
  const atLeastTwo = z.number().int().min(2);
  const share = z.number().gt(0).max(1);
  return z
    .strictObject({
      enabled: z.boolean().default(DEFAULTS.enabled),
      repeatThreshold: atLeastTwo.default(DEFAULTS.repeatThreshold),
      sameErrorThreshold: atLeastTwo.default(DEFAULTS.sameErrorThreshold),
      verbatimThreshold: atLeastTwo.default(DEFAULTS.verbatimThreshold),
      verbatimChangeThreshold: atLeastTwo.default(DEFAULTS.verbatimChangeThreshold),
      nearDuplicateThreshold: atLeastTwo.default(DEFAULTS.nearDuplicateThreshold),
      nearDuplicateSimilarity: share.default(DEFAULTS.nearDuplicateSimilarity),
      sameOutcomeThreshold: atLeastTwo.default(DEFAULTS.sameOutcomeThreshold),
      staleTurnThreshold: atLeastTwo.default(DEFAULTS.staleTurnThreshold),
      probeRepeats: atLeastTwo.default(DEFAULTS.probeRepeats),
      probeCeiling: atLeastTwo.default(DEFAULTS.probeCeiling),
      probeVerdictCeiling: atLeastTwo.default(DEFAULTS.probeVerdictCeiling),
      rejectedThreshold: atLeastTwo.default(DEFAULTS.rejectedThreshold),
      rejectedStopThreshold: atLeastTwo.default(DEFAULTS.rejectedStopThreshold),
      oscillationRepeats: atLeastTwo.default(DEFAULTS.oscillationRepeats),
      cycleRepeats: atLeastTwo.default(DEFAULTS.cycleRepeats),
      maxCycleLength: z.number().int().min(3).max(MAX_TRACKED_PERIOD).default(DEFAULTS.maxCycleLength),
      messageRepeatThreshold: atLeastTwo.default(DEFAULTS.messageRepeatThreshold),
      messageSimilarity: share.default(DEFAULTS.messageSimilarity),
      streamChantRepeats: atLeastTwo.default(DEFAULTS.streamChantRepeats),
      chantRepeats: atLeastTwo.default(DEFAULTS.chantRepeats),
      chantShare: share.default(DEFAULTS.chantShare),
      stopAfter: z.number().int().min(1).default(DEFAULTS.stopAfter),
      exemptTools: z.array(z.string().min(1)).readonly().default(DEFAULTS.exemptTools),
      exemptCommands: z.array(z.instanceof(RegExp)).readonly().default(DEFAULTS.exemptCommands),
      maxEvidence: z.number().int().positive().default(DEFAULTS.maxEvidence),
      stateMachine: portSchema<StateMachine>('must implement StateMachine', 'addContextEntry').optional(),
      taskId: z.string().min(1).optional(),
      runId: z.string().min(1).optional(),
      clock: clockSchema().optional(),
      logger: loggerSchema().optional(),
    })
    .refine((options) => options.stateMachine === undefined || options.taskId !== undefined, {
      message: 'is required when stateMachine is given',
      path: ['taskId'],
    })
    .refine((options) => options.rejectedStopThreshold > options.rejectedThreshold, {
      message: 'must be greater than rejectedThreshold',
      path: ['rejectedStopThreshold'],
    });
});

/** {@link StepLoopDetectorOptions} validated, defaults applied. */
export type ParsedStepLoopDetectorOptions = z.output<ReturnType<typeof stepLoopDetectorOptionsSchema>>;

/** What {@link parseStepLoopDetectorOptions} returned: frozen, taken by a detector as it is. */
const parsedOnce = new WeakSet<object>();

/**
 * `options` validated once, for a host that builds detectors from the same options again and again
 * (the command hook restores its session's detector on every call): a detector built from what this
 * returns does not validate it again (a zod parse of ≈ 0.7 ms in a hook process, docs/benchmarks.md).
 * The result is frozen, so it cannot change after it was validated.
 * @throws ConfigurationError naming the offending option.
 * @example const options = parseStepLoopDetectorOptions({ stopAfter: 2 }); new StepLoopDetector(options);
 */
export function parseStepLoopDetectorOptions(options: StepLoopDetectorOptions = {}): StepLoopDetectorOptions {
  const parsed = Object.freeze(parsedStepLoopDetectorOptions(options));
  parsedOnce.add(parsed);
  return parsed as StepLoopDetectorOptions;
}

/**
 * The default options, with `logger` if given, as {@link parseStepLoopDetectorOptions} returns them
 * for `{ logger }` (frozen, taken by a detector as they are), made without zod: the command hook
 * builds its detectors of a project without a configuration file from these, and its startup snapshot
 * then holds no zod (docs/decisions.md). A `logger` that is not a pino logger is validated, and refused,
 * as {@link parseStepLoopDetectorOptions} refuses it.
 * @throws ConfigurationError when `logger` has no `child()` method.
 * @example new StepLoopDetector(defaultStepLoopDetectorOptions(logger));
 */
export function defaultStepLoopDetectorOptions(logger?: Logger): StepLoopDetectorOptions {
  if (logger !== undefined && typeof (logger as { child?: unknown }).child !== 'function') {
    return parseStepLoopDetectorOptions({ logger });
  }
  const options = Object.freeze({ ...DEFAULTS, ...(logger === undefined ? {} : { logger }) });
  parsedOnce.add(options);
  return options;
}

/**
 * `options` validated, defaults applied; as they are when {@link parseStepLoopDetectorOptions}
 * returned them.
 * @throws ConfigurationError naming the offending option.
 */
export function parsedStepLoopDetectorOptions(
  options: StepLoopDetectorOptions,
): ParsedStepLoopDetectorOptions {
  if (parsedOnce.has(options)) return options as ParsedStepLoopDetectorOptions;
  return parseOptions(stepLoopDetectorOptionsSchema(), options, 'StepLoopDetector options');
}

/**
 * Whether `options` are what {@link parseStepLoopDetectorOptions} or
 * {@link defaultStepLoopDetectorOptions} returned (validated, frozen). Internal: for `sealedStepOptions.ts`.
 */
export function isParsedStepLoopDetectorOptions(options: StepLoopDetectorOptions): boolean {
  return parsedOnce.has(options);
}

/**
 * Takes frozen `options` as validated: only for options this build validated and sealed itself
 * (`unsealStepLoopDetectorOptions`, which checks the seal first). Internal.
 */
export function adoptParsedStepLoopDetectorOptions(
  options: Readonly<StepLoopDetectorOptions>,
): StepLoopDetectorOptions {
  parsedOnce.add(options);
  return options;
}

/** The options' defaults ({@link StepLoopDetectorOptions}' data options), as a detector takes them. */
export const STEP_OPTION_DEFAULTS: Readonly<typeof DEFAULTS> = DEFAULTS;

/**
 * The numeric options in force, defaults applied ({@link StepLoopDetector.options}); each documented,
 * with its default, on {@link StepLoopDetectorOptions}.
 */
export type StepThresholds = Required<
  Pick<
    StepLoopDetectorOptions,
    | 'repeatThreshold'
    | 'sameErrorThreshold'
    | 'verbatimThreshold'
    | 'verbatimChangeThreshold'
    | 'nearDuplicateThreshold'
    | 'nearDuplicateSimilarity'
    | 'sameOutcomeThreshold'
    | 'staleTurnThreshold'
    | 'probeRepeats'
    | 'probeCeiling'
    | 'probeVerdictCeiling'
    | 'rejectedThreshold'
    | 'rejectedStopThreshold'
    | 'oscillationRepeats'
    | 'cycleRepeats'
    | 'maxCycleLength'
    | 'messageRepeatThreshold'
    | 'messageSimilarity'
    | 'chantRepeats'
    | 'chantShare'
    | 'streamChantRepeats'
    | 'stopAfter'
    | 'maxEvidence'
  >
>;

/** The thresholds out of parsed options. */
export function thresholdsOf(parsed: ParsedStepLoopDetectorOptions): StepThresholds {
  return {
    repeatThreshold: parsed.repeatThreshold,
    sameErrorThreshold: parsed.sameErrorThreshold,
    verbatimThreshold: parsed.verbatimThreshold,
    verbatimChangeThreshold: parsed.verbatimChangeThreshold,
    nearDuplicateThreshold: parsed.nearDuplicateThreshold,
    nearDuplicateSimilarity: parsed.nearDuplicateSimilarity,
    sameOutcomeThreshold: parsed.sameOutcomeThreshold,
    staleTurnThreshold: parsed.staleTurnThreshold,
    probeRepeats: parsed.probeRepeats,
    probeCeiling: parsed.probeCeiling,
    probeVerdictCeiling: parsed.probeVerdictCeiling,
    rejectedThreshold: parsed.rejectedThreshold,
    rejectedStopThreshold: parsed.rejectedStopThreshold,
    oscillationRepeats: parsed.oscillationRepeats,
    cycleRepeats: parsed.cycleRepeats,
    maxCycleLength: parsed.maxCycleLength,
    messageRepeatThreshold: parsed.messageRepeatThreshold,
    messageSimilarity: parsed.messageSimilarity,
    chantRepeats: parsed.chantRepeats,
    chantShare: parsed.chantShare,
    streamChantRepeats: parsed.streamChantRepeats,
    stopAfter: parsed.stopAfter,
    maxEvidence: parsed.maxEvidence,
  };
}
