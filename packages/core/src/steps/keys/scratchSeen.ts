/**
 * A set of 32-bit hashes for one short computation, reused without clearing or allocating: an
 * open-addressing table stamped with a generation, so `clear()` is one increment. Holds at most
 * {@link SCRATCH_SEEN_CAPACITY} values (a quarter of its slots: probes stay short).
 */

/** Most values one use may add. */
export const SCRATCH_SEEN_CAPACITY = 256;
const SLOTS = SCRATCH_SEEN_CAPACITY * 4;
const MASK = SLOTS - 1;

/**
 * @example const seen = new ScratchSeen(); seen.clear(); seen.add(7); seen.has(7); // true
 */
export class ScratchSeen {
  private readonly values = new Int32Array(SLOTS);
  private readonly stamps = new Uint32Array(SLOTS);
  private generation = 0;
  private count = 0;

  /** Values added since the last {@link clear}. */
  get size(): number {
    return this.count;
  }

  /** Forgets every value. */
  clear(): void {
    this.count = 0;
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  /** Whether `hash` (taken as int32) was added since the last {@link clear}. */
  has(hash: number): boolean {
    const value = hash | 0;
    for (let slot = mixSlot(value); this.stamps[slot] === this.generation; slot = (slot + 1) & MASK) {
      if (this.values[slot] === value) return true;
    }
    return false;
  }

  /** Adds `hash` (taken as int32), which {@link has} said is absent; beyond the capacity, nothing. */
  add(hash: number): void {
    if (this.count >= SCRATCH_SEEN_CAPACITY) return;
    let slot = mixSlot(hash | 0);
    while (this.stamps[slot] === this.generation) slot = (slot + 1) & MASK;
    this.stamps[slot] = this.generation;
    this.values[slot] = hash | 0;
    this.count++;
  }
}

/** The slot of a value: its high bits folded in, so hashes that differ only there spread too. */
function mixSlot(value: number): number {
  return (value ^ (value >>> 10) ^ (value >>> 20)) & MASK;
}
