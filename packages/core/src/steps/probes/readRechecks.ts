import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { SnapshotJson, SnapshotPart } from '../options/stepSnapshot.js';
import { parseSnapshotPart } from '../options/stepSnapshot.js';
import type { ProbeRun } from './probeRecord.js';

/** Reads remembered (their latest result); the oldest is forgotten beyond this. */
export const MAX_READS = 64;

/**
 * The reads of a run that the agent may run again to look at the result of its changes (the rebuilt
 * page grepped after each build): the latest result of each, by the read's identity. A read's text
 * is hashed only once the same read runs again (most reads run once). Bounded: 64 reads.
 */
export class ReadRechecks implements SnapshotPart {
  private readonly reads = new Map<string, ReadResult>();

  /** Records a read (`run.readKey` not `''`); returns whether it shows something else than its previous run. */
  changed(run: ProbeRun): boolean {
    const stored = this.reads.get(run.readKey);
    this.reads.delete(run.readKey);
    if (stored !== undefined && stored.text === run.readText) {
      // The same text: the same result, without hashing either (a file read again unchanged).
      this.reads.set(run.readKey, stored);
      return false;
    }
    const result = stored === undefined ? run.readResult : run.readResult();
    this.reads.set(run.readKey, { text: run.readText, result });
    if (this.reads.size > MAX_READS) this.reads.delete(this.reads.keys().next().value as string);
    if (stored === undefined) return false;
    return resultOf(stored) !== result;
  }

  /** The reads' latest results. */
  snapshot(): SnapshotJson {
    return [...this.reads].map(([key, read]) => [key, resultOf(read)]) as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned (`undefined`: none). @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const reads = parseSnapshotPart(stateSchema, state ?? [], 'snapshot.history.probes.reads');
    this.reads.clear();
    // A restored read has no text: the next read of it is hashed.
    for (const [key, result] of reads) this.reads.set(key, { text: undefined, result });
  }
}

/** A read's latest result: its text (absent when restored) and its hash, or how to compute it. */
interface ReadResult {
  text: string | undefined;
  result: number | (() => number);
}

function resultOf(read: ReadResult): number {
  if (typeof read.result === 'function') read.result = read.result();
  return read.result;
}

// built on first use (see parseSnapshotPart)
const stateSchema = lazySchema(() => z.array(z.tuple([z.string(), z.number().int()])).max(MAX_READS));
