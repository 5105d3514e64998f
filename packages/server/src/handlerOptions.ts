import { ConfigurationError } from '@loopguard/core';
import { describeValue } from '@loopguard/core/internal';

/** The numeric options of `StatusHandlerOptions` and the minimum of each (whole numbers). */
const LEAST: Readonly<Record<string, number>> = {
  attemptWindowMs: 1,
  followIntervalMs: 1,
  heartbeatMs: 1,
  maxBodyBytes: 0,
  maxEventStreams: 0,
  cacheMs: 0,
};

/**
 * Refuses options the handler could not serve with, before any timer or stream starts: a reader
 * that is not an object, or a numeric option that is not a whole number of at least its minimum.
 * @throws ConfigurationError naming the option and what it got.
 */
export function checkHandlerOptions(options: { readonly reader?: unknown }): void {
  if (options.reader === null || typeof options.reader !== 'object')
    throw new ConfigurationError(`reader must be a StatusReader, got ${describeValue(options.reader)}`);
  for (const [name, least] of Object.entries(LEAST))
    checkWholeNumber(name, (options as Record<string, unknown>)[name], least);
}

/**
 * Refuses a numeric option that is given and is not a whole number of at least `least`.
 * @throws ConfigurationError naming the option and what it got.
 * @example checkWholeNumber('intervalMs', -1, 1); // throws: intervalMs must be a whole number of at least 1, got -1
 */
export function checkWholeNumber(name: string, value: unknown, least: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= least))
    throw new ConfigurationError(
      `${name} must be a whole number of at least ${least}, got ${describeValue(value)}`,
    );
}
