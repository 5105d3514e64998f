import { z } from 'zod';
import type { StepEvidence } from '../keys/stepEvidence.js';
import { cleanEvidence, evidenceSchema } from '../keys/stepEvidence.js';

/** One key's failures with one error class. */
export interface FailureCount {
  /** The failure's error class (its first error line, digits and the call's own words masked). */
  errorClass: number;
  /** Failures counted with that class. */
  count: number;
  /** Evidence of the first and the newest two failures. */
  evidence: StepEvidence[];
}

/**
 * Failures counted per key (a tool, a call), each with one error class, the most recently counted
 * last; beyond `max` keys the oldest is forgotten. What starts or ends a count is its owner's rule
 * (`rejectionStreaks.ts`, `retriedCalls.ts`); this holds the counts and their snapshot.
 */
export class FailureCounts {
  private readonly counts = new Map<string, FailureCount>();

  /** @param max - keys remembered (integer ≥ 1). */
  constructor(private readonly max: number) {}

  /** Removes and returns `key`'s count (`undefined`: none). */
  take(key: string): FailureCount | undefined {
    const count = this.counts.get(key);
    this.counts.delete(key);
    return count;
  }

  /**
   * Counts a failure of `key` with `errorClass`: one more than `previous` (what {@link take}
   * returned) when its class is the same, else the first. Returns the count.
   */
  add(key: string, previous: FailureCount | undefined, errorClass: number, evidence: StepEvidence): number {
    const next: FailureCount =
      previous !== undefined && previous.errorClass === errorClass
        ? {
            errorClass,
            count: previous.count + 1,
            evidence: [previous.evidence[0] as StepEvidence, ...previous.evidence.slice(-1), evidence],
          }
        : { errorClass, count: 1, evidence: [evidence] };
    this.counts.set(key, next);
    if (this.counts.size > this.max) this.counts.delete(this.counts.keys().next().value as string);
    return next.count;
  }

  /** `key`'s count (`undefined`: none). */
  of(key: string): Readonly<FailureCount> | undefined {
    return this.counts.get(key);
  }

  /** Every count, oldest first. */
  values(): IterableIterator<Readonly<FailureCount>> {
    return this.counts.values();
  }

  /** Forgets every count. */
  clear(): void {
    this.counts.clear();
  }

  /** The counts as `[key, count]` pairs, oldest first, their evidence copied. */
  snapshot(): [string, FailureCount][] {
    return [...this.counts].map(([key, c]) => [key, { ...c, evidence: c.evidence.map((e) => ({ ...e })) }]);
  }

  /** Replaces the counts with pairs {@link failureCountsSchema} validated. */
  restore(pairs: z.infer<ReturnType<typeof failureCountsSchema>>): void {
    this.counts.clear();
    for (const [key, c] of pairs) this.counts.set(key, { ...c, evidence: c.evidence.map(cleanEvidence) });
  }
}

/** The schema of {@link FailureCounts.snapshot}'s pairs, at most `max` of them. */
export function failureCountsSchema(max: number) {
  return z
    .array(
      z.tuple([
        z.string(),
        z.object({
          errorClass: z.number().int(),
          count: z.number().int().positive(),
          evidence: z.array(evidenceSchema()).min(1).max(3),
        }),
      ]),
    )
    .max(max);
}
