/**
 * A set of the most recent keys, bounded by two generations: a key is found while it is among the
 * last `generation` to 2 × `generation` keys added, so memory holds at most 2 × `generation` keys
 * whatever a file holds.
 * @example const keys = new RecentKeys(2); keys.add('a'); keys.has('a'); // true
 */
export class RecentKeys {
  private current = new Set<string>();
  private previous = new Set<string>();

  /** @param generation - keys in a generation (at least 1). */
  constructor(private readonly generation: number) {}

  /** Whether `key` was added among the recent keys. */
  has(key: string): boolean {
    return this.current.has(key) || this.previous.has(key);
  }

  /** Adds `key`; the older generation is forgotten when the newer one is full. */
  add(key: string): void {
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(key);
  }
}
