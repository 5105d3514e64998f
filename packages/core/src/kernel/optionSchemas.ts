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
  return z.any().superRefine((value, ctx) => {
    if (value === null || typeof value !== 'object') {
      ctx.addIssue({ code: 'custom', message });
      return;
    }
    const missing = methods.filter((name) => typeof (value as Record<string, unknown>)[name] !== 'function');
    if (missing.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${message} (missing ${missing.map((m) => `${m}()`).join(', ')})`,
      });
    }
  }) as unknown as z.ZodType<T>;
}

export const clockSchema = portSchema<Clock>('must have a now() method', 'now');

/** Schema of an injected pino {@link Logger}. */
export const loggerSchema = portSchema<Logger>('must be a pino logger', 'child');
