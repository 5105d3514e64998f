import { RecentSet } from '../../kernel/RecentSet.js';
import type { SnapshotJson } from '../options/stepSnapshot.js';

/**
 * A {@link RecentSet} of 32-bit fingerprints. Values are held as int32 (`| 0`, one to one with
 * uint32), which V8 keeps unboxed: a uint32 above 2^31 would be a heap number per entry. Snapshots
 * hold them as uint32, as given.
 */
export class BoundedSeen extends RecentSet<number> {
  override has(value: number): boolean {
    return super.has(value | 0);
  }

  override add(value: number): void {
    super.add(value | 0);
  }

  /** Both generations (for snapshots). */
  snapshot(): SnapshotJson {
    const { previous, current } = this.generations();
    return { previous: previous.map(uint32), current: current.map(uint32) };
  }

  /** Replaces both generations. */
  override restore(state: { previous: readonly number[]; current: readonly number[] }): void {
    super.restore({ previous: state.previous.map(int32), current: state.current.map(int32) });
  }
}

const uint32 = (value: number) => value >>> 0;
const int32 = (value: number) => value | 0;
