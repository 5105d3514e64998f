/**
 * Calls `next` at once when `pending` is `undefined`, else when it resolves: the adapters stay
 * synchronous (no promise, no extra turn of the event loop) unless a write is pending.
 * @example whenSettled(undefined, () => 1); // 1
 */
export function whenSettled<T>(
  pending: Promise<unknown> | undefined,
  next: () => T | Promise<T>,
): T | Promise<T> {
  return pending === undefined ? next() : pending.then(next);
}

/**
 * `then(value)` at once for a plain value, or once a promise-like (what a framework hook of the
 * user returned) resolves.
 * @example after(2, (n) => n + 1); // 3
 */
export function after<T, R>(value: T | PromiseLike<T>, then: (value: T) => R | Promise<R>): R | Promise<R> {
  const thenable = typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
  return thenable ? Promise.resolve(value).then(then) : then(value as T);
}
