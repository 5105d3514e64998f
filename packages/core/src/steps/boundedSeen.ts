import type { SnapshotJson } from './stepSnapshot.js';

/**
 * A set of 32-bit fingerprints bounded by two generations: the newest up to 2 × `generation` entries.
 * Values are held as int32 (`| 0`, one to one with uint32), which V8 keeps unboxed: a uint32 above
 * 2^31 would be a heap number per entry. Snapshots hold them as uint32, as given.
 */
export class BoundedSeen {
  private current = new Set<number>();
  private previous = new Set<number>();

  constructor(private readonly generation: number) {}

  has(value: number): boolean {
    const key = value | 0;
    return this.current.has(key) || this.previous.has(key);
  }

  add(value: number): void {
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(value | 0);
  }

  /** Both generations (for snapshots). */
  snapshot(): SnapshotJson {
    return { previous: uint32s(this.previous), current: uint32s(this.current) };
  }

  /** Replaces both generations. */
  restore(state: { previous: number[]; current: number[] }): void {
    this.previous = new Set(state.previous.map((value) => value | 0));
    this.current = new Set(state.current.map((value) => value | 0));
  }
}

function uint32s(values: Set<number>): number[] {
  return Array.from(values, (value) => value >>> 0);
}
