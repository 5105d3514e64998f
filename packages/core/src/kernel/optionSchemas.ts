import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from './clock.js';
import { memo } from './memo.js';

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

/**
 * A schema made on first use, not when its module loads; the same one on every call. The command
 * hook starts from a V8 startup snapshot that holds whatever its modules make when they load, and
 * zod's code is evaluated only when a first schema is made: a hook call that validates nothing
 * (most of them) never pays for zod (docs/decisions.md).
 * @example const schema = lazySchema(() => z.number()); schema().parse(1);
 */
export function lazySchema<T>(make: () => T): () => T {
  return memo(make);
}

/** Schema of an injected {@link Clock} (made on first use: {@link lazySchema}). */
export const clockSchema = lazySchema(() => portSchema<Clock>('must have a now() method', 'now'));

/** Schema of an injected pino {@link Logger} (made on first use: {@link lazySchema}). */
export const loggerSchema = lazySchema(() => portSchema<Logger>('must be a pino logger', 'child'));
