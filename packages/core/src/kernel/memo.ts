/**
 * `compute`, called once, on the first read; the same value on every later read.
 * @example const words = memo(() => text.split(' ')); words() === words(); // true
 */
export function memo<T>(compute: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= compute();
    return value;
  };
}
