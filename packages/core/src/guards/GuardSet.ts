import type { Logger } from 'pino';
import { z } from 'zod';
import { type Clock, systemClock } from '../kernel/clock.js';
import { silentLogger } from '../kernel/logger.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import type { InfrastructureKind } from '../signatures/infrastructure.js';
import { ConsecutiveFailuresGuard } from './ConsecutiveFailuresGuard.js';
import type { Guard, GuardIteration, GuardName, GuardVerdict } from './Guard.js';
import {
  type GuardSetOptions,
  guardSetOptionsSchema,
  type ResolvedGuardSetOptions,
} from './guardSetOptions.js';
import { guardStateOf, runGuards } from './guardState.js';
import { MaxIterationsGuard } from './MaxIterationsGuard.js';
import { MaxRuntimeGuard } from './MaxRuntimeGuard.js';
import { parseInput } from './parseInput.js';
import { QualityRegressionGuard } from './QualityRegressionGuard.js';
import { RepeatedOutputGuard } from './RepeatedOutputGuard.js';
import { ThrashingGuard } from './ThrashingGuard.js';

/**
 * What {@link GuardSet.check} is asked about: the iteration about to run and the run so far.
 * @example { iteration: 4, startedAt: runStart, history: [{ iteration: 1, output, passed: false }, ...] }
 */
export interface GuardCheckInput {
  /** The iteration about to run, 1-based. */
  iteration: number;
  /** The finished iterations of this run, oldest first. */
  history: readonly GuardIteration[];
  /** When the run started, epoch ms; without it max runtime is not checked. */
  startedAt?: number;
}

/** What {@link GuardSet.check} returns. */
export type GuardSetResult =
  | {
      /** The iteration may run. */
      canContinue: true;
      /** Never set when the iteration may run; present so that `result.blockedBy` reads without narrowing. */
      blockedBy?: undefined;
      /** The newest iteration's output was an infrastructure error: back off before running. */
      infrastructureError: InfrastructureKind | null;
    }
  | {
      /** The iteration must not run. */
      canContinue: false;
      /** The first guard that blocked, in {@link GUARD_ORDER}. */
      blockedBy: GuardName;
      /** That guard's message. */
      message: string;
      /** The facts it decided on. */
      evidence: Readonly<Record<string, unknown>>;
      /** The newest iteration's output was an infrastructure error. */
      infrastructureError: InfrastructureKind | null;
    };

/** A guard that blocked, as emitted by `guardTriggered`. */
export interface GuardTrigger extends GuardVerdict {
  /** The iteration that was blocked. */
  iteration: number;
  /** When, epoch ms. */
  at: number;
}

/** Events of {@link GuardSet} (eventemitter3). */
export interface GuardSetEvents {
  /** A guard blocked an iteration. */
  guardTriggered: [trigger: GuardTrigger];
}

const checkInputSchema = z.strictObject({
  iteration: z.number().int().min(0),
  startedAt: z.number().finite().optional(),
  history: z.array(
    z.looseObject({
      iteration: z.number().int().min(0),
      output: z.string().optional(),
      passed: z.boolean().optional(),
      score: z.number().min(0).max(1).optional(),
      flags: z.array(z.looseObject({ message: z.string() })).optional(),
      filesModified: z.array(z.string()).optional(),
    }),
  ),
});

/**
 * The one guard set that the orchestrator and the CLI runner use: max iterations, max runtime,
 * consecutive failures, repeated output, quality regression and thrashing, run in that order
 * (see `GUARD_ORDER`). The first guard that blocks wins and is emitted as `guardTriggered`.
 *
 * @example
 * const guards = new GuardSet({ maxIterations: 8, clock });
 * guards.on('guardTriggered', (t) => log.warn(t, t.message));
 * const result = guards.check({ iteration: history.length + 1, startedAt, history });
 * if (!result.canContinue) block(task, result.blockedBy, result.message);
 */
export class GuardSet extends SafeEmitter<GuardSetEvents> {
  /** The options in force, defaults applied. */
  readonly options: Readonly<ResolvedGuardSetOptions>;
  /** The guards, in the order they run. */
  readonly guards: readonly Guard[];
  private readonly clock: Clock;
  private readonly logger: Logger;

  /** @throws ConfigurationError naming the first invalid option (caps, fixed loop threshold, unknown keys). */
  constructor(options: GuardSetOptions = {}) {
    const resolved = parseOptions(guardSetOptionsSchema, options, 'GuardSet options');
    const logger = (resolved.logger ?? silentLogger()).child({ component: 'GuardSet' });
    super(logger);
    this.options = Object.freeze(resolved);
    this.clock = resolved.clock ?? systemClock;
    this.logger = logger;
    this.guards = Object.freeze([
      new MaxIterationsGuard(resolved.maxIterations),
      new MaxRuntimeGuard(resolved.maxRuntimeMinutes),
      new ConsecutiveFailuresGuard(resolved.consecutiveFailureLimit),
      new RepeatedOutputGuard(),
      new QualityRegressionGuard(),
      new ThrashingGuard(resolved.thrashingThreshold),
    ]);
  }

  /**
   * Runs the guards in order and returns the first that blocks, or `canContinue: true`.
   * @throws InvalidInputError when `input` is malformed (nothing is emitted).
   */
  check(input: GuardCheckInput): GuardSetResult {
    parseInput(checkInputSchema, input, 'GuardSet.check input');
    const state = guardStateOf({
      iteration: input.iteration,
      startedAt: input.startedAt ?? null,
      now: this.clock.now(),
      history: input.history,
      exemptions: this.options.exemptSignatures,
    });
    const newest = state.history.at(-1);
    const infrastructureError = newest?.infrastructure
      ? (newest.signature?.error.infrastructure ?? null)
      : null;
    const verdict = runGuards(this.guards, state);
    if (verdict !== null) {
      this.logger.info(
        { guard: verdict.guard, iteration: input.iteration, evidence: verdict.evidence },
        verdict.message,
      );
      this.emit('guardTriggered', { ...verdict, iteration: input.iteration, at: state.now });
      return {
        canContinue: false,
        blockedBy: verdict.guard,
        message: verdict.message,
        evidence: verdict.evidence,
        infrastructureError,
      };
    }
    return { canContinue: true, infrastructureError };
  }
}
