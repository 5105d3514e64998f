import type { SnapshotJson } from './stepSnapshot.js';

/** A set of 32-bit fingerprints bounded by two generations: the newest up to 2 × `generation` entries. */
export class BoundedSeen {
  private current = new Set<number>();
  private previous = new Set<number>();

  constructor(private readonly generation: number) {}

  has(value: number): boolean {
    return this.current.has(value) || this.previous.has(value);
  }

  add(value: number): void {
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(value);
  }

  /** Both generations (for snapshots). */
  snapshot(): SnapshotJson {
    return { previous: [...this.previous], current: [...this.current] };
  }

  /** Replaces both generations. */
  restore(state: { previous: number[]; current: number[] }): void {
    this.previous = new Set(state.previous);
    this.current = new Set(state.current);
  }
}
