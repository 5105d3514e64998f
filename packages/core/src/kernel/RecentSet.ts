/**
 * A set of the most recently added values, bounded by two generations: a value is found while it
 * is among the last `generation` to 2 × `generation` distinct values added, so memory holds at most
 * 2 × `generation` values whatever the input holds. Forgetting a whole generation at once keeps
 * `has` and `add` at one or two `Set` lookups, with no order to maintain.
 * @example
 * const seen = new RecentSet<string>(2);
 * seen.addNew('a'); // true
 * seen.addNew('a'); // false
 */
export class RecentSet<T> {
  private current = new Set<T>();
  private previous = new Set<T>();

  /** @param generation - values in a generation (at least 1). */
  constructor(private readonly generation: number) {}

  /** Whether `value` is among the recent values. */
  has(value: T): boolean {
    return this.current.has(value) || this.previous.has(value);
  }

  /** Adds `value`; the older generation is forgotten when the newer one is full. */
  add(value: T): void {
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(value);
  }

  /** Adds `value` unless it is among the recent values; whether it was new. */
  addNew(value: T): boolean {
    if (this.has(value)) return false;
    this.add(value);
    return true;
  }

  /** Both generations, each in the order added (for snapshots). */
  generations(): { previous: T[]; current: T[] } {
    return { previous: [...this.previous], current: [...this.current] };
  }

  /** Replaces both generations (from {@link generations}). */
  restore(state: { previous: readonly T[]; current: readonly T[] }): void {
    this.previous = new Set(state.previous);
    this.current = new Set(state.current);
  }
}
