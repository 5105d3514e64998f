import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { StepEvidence } from '../keys/stepEvidence.js';
import type { SnapshotJson, SnapshotPart } from '../options/stepSnapshot.js';
import { parseSnapshotPart } from '../options/stepSnapshot.js';
import { type FailureCount, FailureCounts, failureCountsSchema } from './failureCounts.js';

/** Calls whose failures are remembered; the oldest is forgotten beyond this. */
const MAX_CALLS = 16;

/**
 * The same call failing the same way, whatever was read between: for each call (one action, the
 * same command or read), its failures with one error class since the last change. Reading cannot
 * make an identical call go otherwise; only a change can (an edit, a write, an install), so a change
 * starts every count again. The call going through, or failing otherwise, ends its count. Attempts
 * to change something are not counted here: a refused change is the tool's streak
 * (`rejectionStreaks.ts`). Bounded: 16 calls.
 */
export class RetriedCalls implements SnapshotPart {
  private readonly calls = new FailureCounts(MAX_CALLS);
  /** Whether the latest turn ended a count of two or more: a change, or the call went otherwise. */
  broke = false;

  /**
   * Records a turn: `key` its action's identity (`''`: none), `kind` what it does (`change` for an
   * attempt to change something), `changed` whether it changed something, `failed` whether it
   * failed. Returns the call's failures with this error since the last change (0: not a failure counted).
   */
  record(
    key: string,
    kind: 'change' | 'other',
    changed: boolean,
    failed: boolean,
    errorClass: number,
    evidence: StepEvidence,
  ): number {
    this.broke = false;
    if (changed) {
      for (const call of this.calls.values()) if (call.count >= 2) this.broke = true;
      this.calls.clear();
      return 0;
    }
    if (key === '' || kind === 'change') return 0;
    const call = this.calls.take(key);
    if (call !== undefined && (!failed || call.errorClass !== errorClass)) this.broke = call.count >= 2;
    if (!failed) return 0;
    return this.calls.add(key, call, errorClass, evidence);
  }

  /** The failures of the call `key` since the last change (`undefined`: none). */
  of(key: string): Readonly<FailureCount> | undefined {
    return this.calls.of(key);
  }

  /** The counts' state: at most 16 calls, three pieces of evidence each. */
  snapshot(): SnapshotJson {
    return { calls: this.calls.snapshot() } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned (none: empty). @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(stateSchema, state ?? { calls: [] }, 'snapshot.history.retries');
    this.calls.restore(s.calls);
    this.broke = false;
  }
}

// built on first use (see parseSnapshotPart)
const stateSchema = lazySchema(() => z.object({ calls: failureCountsSchema(MAX_CALLS) }));
