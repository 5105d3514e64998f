import { rmSync, writeFileSync } from 'node:fs';

/** Bytes kept in reserve so that a run that hits a full disk can still record why it failed. */
export const RESERVE_BYTES = 512 * 1024;

/**
 * A file of {@link RESERVE_BYTES} written when a run starts and deleted when it ends: when the disk
 * fills up mid-run, deleting it first gives SQLite the room to record the run as `failed`.
 * Creating it is best effort (a nearly full disk simply has no reserve).
 */
export class SpaceReserve {
  constructor(private readonly path: string) {
    try {
      writeFileSync(path, Buffer.alloc(RESERVE_BYTES));
    } catch {
      rmSync(path, { force: true });
    }
  }

  /** Deletes the reserve, giving its space back. Idempotent. */
  free(): void {
    rmSync(this.path, { force: true });
  }
}
