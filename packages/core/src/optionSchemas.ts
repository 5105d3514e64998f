import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from './clock.js';

/**
 * A zod schema accepting any object that has every one of `methods`: how options check an injected
 * port (state machine, store, clock) without tying it to one class.
 *
 * @example portSchema<Clock>('must have a now() method', 'now').optional()
 */
export function portSchema<T>(message: string, ...methods: string[]): z.ZodType<T> {
  return z.custom<T>(
    (value) =>
      value !== null &&
      typeof value === 'object' &&
      methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
    { message },
  );
}

/** Schema of an injected {@link Clock}. */
export const clockSchema = portSchema<Clock>('must have a now() method', 'now');

/** Schema of an injected pino {@link Logger}. */
export const loggerSchema = portSchema<Logger>('must be a pino logger', 'child');
