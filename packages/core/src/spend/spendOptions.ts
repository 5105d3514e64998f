import { z } from 'zod';
import { lazySchema } from '../kernel/optionSchemas.js';
import { parseOptions } from '../kernel/parseOptions.js';
import type { ModelPrice } from './priceBook.js';

/** Default of `warnAt`: the share of a cap at which loopguard warns once. */
export const DEFAULT_SPEND_WARN_AT = 0.8;
/** Default of `onUnknownPrice`: a reply no budget in dollars can price is told, not stopped. */
export const DEFAULT_ON_UNKNOWN_PRICE = 'warn';
/** Default of `burnRate.forMinutes`: the stretch the burn rate is averaged over. */
export const DEFAULT_BURN_MINUTES = 5;

/** The caps of one scope; either or both. */
export interface SpendCaps {
  /** Stop at this many tokens (input, output and cache, all counted). @default undefined (no cap on tokens) */
  maxTokens?: number;
  /**
   * Stop at this many US dollars (replies of unpriced models add nothing here, and the messages say so).
   * @default undefined (no cap on dollars)
   */
  maxCostUsd?: number;
}

/** The burn-rate alarm of a session or run: spend per minute above a threshold over a stretch. */
export interface BurnRateOptions {
  /** Alarm when the tokens per minute, averaged over `forMinutes`, reach this. @default undefined (no alarm on tokens) */
  tokensPerMinute?: number;
  /** Alarm when the dollars per minute, averaged over `forMinutes`, reach this. @default undefined (no alarm on dollars) */
  costUsdPerMinute?: number;
  /** The stretch, whole minutes (1–120). @default 5 */
  forMinutes?: number;
  /** `warn` gives the agent a warning (again after the rate fell back); `stop` stops it. @default 'warn' */
  action?: 'warn' | 'stop';
}

/**
 * The spend guard's options: the `spend` section of `loopguard.config.yaml`, `loopguard run`'s and
 * `init`'s options and the adapters' `spend` option share these keys. Nothing set: no guard.
 */
export interface SpendOptions {
  /** Caps of one agent session (a hook session, a `loopguard run`, an adapter's run). @default undefined (no cap) */
  session?: SpendCaps;
  /**
   * Caps of one task over all its attempts and runs (the orchestrator, `loopguard run --task`).
   * @default undefined (no cap)
   */
  task?: SpendCaps;
  /** Caps of one project over one UTC day, all sessions together (the hooks). @default undefined (no cap) */
  projectDay?: SpendCaps;
  /** The share of a cap (over 0, under 1) at which the agent is warned once. @default 0.8 */
  warnAt?: number;
  /** The burn-rate alarm of a session. @default undefined (no alarm) */
  burnRate?: BurnRateOptions;
  /**
   * Prices by exact model name, before the pricing library's (US dollars per million tokens).
   * @default undefined (the pricing library's alone)
   */
  prices?: Record<string, ModelPrice>;
  /**
   * What happens when a reply's model has no price while a budget is in dollars (a cap in dollars,
   * or the burn rate's `costUsdPerMinute`): that budget cannot count the reply. `warn` tells the
   * agent at the first such reply (once per scope) and goes on; `stop` stops it there.
   * @default 'warn'
   */
  onUnknownPrice?: 'warn' | 'stop';
}

/** {@link SpendOptions} with the defaults applied. */
export type ResolvedSpendOptions = Omit<SpendOptions, 'warnAt' | 'burnRate' | 'onUnknownPrice'> & {
  /** {@link SpendOptions.warnAt}, default applied (0.8). */
  warnAt: number;
  /** {@link SpendOptions.onUnknownPrice}, default applied (`warn`). */
  onUnknownPrice: 'warn' | 'stop';
  /** {@link SpendOptions.burnRate}, `forMinutes` (5) and `action` (`warn`) applied. */
  burnRate?: Required<Pick<BurnRateOptions, 'forMinutes' | 'action'>> & BurnRateOptions;
};

/**
 * The schema of {@link SpendOptions}. Made on first use (`lazySchema`): a hook call validates spend
 * options only when the project's configuration file has a `spend` section. What it parses is frozen
 * and known as validated: {@link parseSpendOptions} and `SpendGuard` take it as it is (an edge that
 * reports the schema's issues in its own words, as `loopguard run` does, validates once).
 */
export const spendOptionsSchema = lazySchema(() => {
  const positive = z.number().positive().finite();
  const capsSchema = z.strictObject({
    maxTokens: z.number().int().positive().optional(),
    maxCostUsd: positive.optional(),
  });
  const priceSchema = z.strictObject({
    input: z.number().min(0).finite(),
    output: z.number().min(0).finite(),
    cacheWrite: z.number().min(0).finite().optional(),
    cacheRead: z.number().min(0).finite().optional(),
  });
  return z
    .strictObject({
      session: capsSchema.optional(),
      task: capsSchema.optional(),
      projectDay: capsSchema.optional(),
      warnAt: z.number().gt(0).lt(1).default(DEFAULT_SPEND_WARN_AT),
      burnRate: z
        .strictObject({
          tokensPerMinute: positive.optional(),
          costUsdPerMinute: positive.optional(),
          forMinutes: z.number().int().min(1).max(120).default(DEFAULT_BURN_MINUTES),
          action: z.enum(['warn', 'stop']).default('warn'),
        })
        .optional(),
      prices: z.record(z.string().min(1), priceSchema).optional(),
      onUnknownPrice: z.enum(['warn', 'stop']).default(DEFAULT_ON_UNKNOWN_PRICE),
    })
    .overwrite(markValidated);
});

/** The options this module validated: frozen, so one handed on (an adapter's to its SpendGuard) is not checked again. */
const validated = new WeakSet<object>();

/** `options`, frozen (nested objects too) and known as validated. */
function markValidated<T extends object>(options: T): T {
  validated.add(frozen(options));
  return options;
}

/**
 * Validates spend options and applies the defaults, once: the result is frozen (nested objects too),
 * and given back to this function it is returned as it is. So an adapter validates at its own edge,
 * before the pricing library loads, and the public `SpendGuard` it builds later does not parse
 * the same options again; options built by hand (or a copy of validated ones) are still checked.
 * @param what - how the caller names them in errors (`loopguard.config.yaml spend`, `spend option`).
 * @throws ConfigurationError naming the key and the value.
 */
export function parseSpendOptions(input: unknown, what = 'spend options'): ResolvedSpendOptions {
  if (typeof input === 'object' && input !== null && validated.has(input))
    return input as ResolvedSpendOptions;
  return parseOptions(spendOptionsSchema(), input, what) as ResolvedSpendOptions;
}

/** `value` with every object in it frozen (the parsed options are plain data: objects and numbers). */
function frozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const member of Object.values(value)) frozen(member);
  return Object.freeze(value);
}

/** Whether the options set any cap or alarm (the guard is off otherwise). */
export function spendGuardOn(options: SpendOptions | undefined): boolean {
  if (options === undefined) return false;
  const set = (caps?: SpendCaps) => caps?.maxTokens !== undefined || caps?.maxCostUsd !== undefined;
  const burn = options.burnRate;
  return (
    set(options.session) ||
    set(options.task) ||
    set(options.projectDay) ||
    burn?.tokensPerMinute !== undefined ||
    burn?.costUsdPerMinute !== undefined
  );
}
