/** A count of schemas made: each starts with a call of one of `z`'s makers (`z.object`, `z.number`, ...). */
export interface Made {
  count: number;
}

/**
 * zod with its makers counted in `made`, for `vi.mock('zod', …)`: a test tells whether some code
 * made a schema (core makes each on first use, so code that validates nothing makes none).
 * @example vi.mock('zod', async (original) => (await import('../zodMakers.js')).countingZod(await original(), made));
 */
export function countingZod<Z extends { z: object }>(actual: Z, made: Made): Z {
  const z = new Proxy(actual.z, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function' || typeof key !== 'string' || !/^[a-z]/.test(key)) return value;
      return (...args: unknown[]) => {
        made.count++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ...actual, z };
}
