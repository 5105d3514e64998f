import { z } from 'zod';
import { lazySchema } from '../kernel/optionSchemas.js';
import { evidenceSchema } from './stepEvidence.js';

/** Longest periodic pattern tracked (cycle length): see docs/step-detector.md for why 16. */
export const MAX_TRACKED_PERIOD = 16;

/** zod schema of a {@link StepHistory} snapshot, built on first use (see parseSnapshotPart). */
export const historyStateSchema = lazySchema(() => {
  const int = z.number().int();
  const hash = z.number().int().nonnegative();
  const seenSchema = z.object({ previous: z.array(hash), current: z.array(hash) });
  return z.object({
    recent: z.array(
      z.object({
        step: int,
        actionKey: z.string(),
        tool: z.string(),
        actionText: z.string(),
        outcomeKey: hash,
        pairKey: z.string(),
        error: z.boolean(),
        errorClass: hash,
        informative: z.boolean(),
        quiet: z.boolean(),
        rejected: z.boolean(),
        // Written since issue 37's thirteenth round; an older snapshot's turns read as looks, as they were judged.
        applied: z.boolean().default(false),
        state: hash.default(0),
        outputLength: int.nonnegative(),
        duplicates: int.nonnegative(),
        evidence: evidenceSchema(),
      }),
    ),
    probes: z.unknown(),
    rejections: z.unknown(),
    retries: z.unknown(),
    searches: z.unknown(),
    unseenPrints: z.unknown(),
    seenLines: seenSchema,
    seenShapes: seenSchema,
    seenErrors: seenSchema,
    seenActions: seenSchema,
    pairCounts: z.array(z.tuple([z.string(), int.positive()])),
    errorCounts: z.array(z.tuple([hash, int.positive()])),
    outcomeCounts: z.array(z.tuple([hash, int.positive()])),
    messageCounts: z.array(z.tuple([z.string(), int.positive()])),
    messages: z.array(z.object({ step: int, key: z.string(), text: z.string(), evidence: evidenceSchema() })),
    periodRuns: z.array(int.nonnegative()).length(MAX_TRACKED_PERIOD + 1),
    lastInformativeStep: int,
    turnsSinceInformative: int.nonnegative(),
    staleSinceInformative: int.nonnegative(),
    rejectedSinceInformative: int.nonnegative(),
    turnCount: int.nonnegative(),
    verbatimRun: int.nonnegative(),
    failingRun: int.nonnegative().default(0),
    lastWasChange: z.boolean().default(false),
    blindRun: int.nonnegative().default(0),
  });
});

/** A 32-bit hash of a key string, for bounded sets of seen keys. */
export function keyHash(key: string): number {
  let a = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) a = Math.imul(a ^ key.charCodeAt(i), 0x01000193);
  return (a ^ key.length) >>> 0;
}
