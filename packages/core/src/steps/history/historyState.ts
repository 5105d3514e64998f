import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import { mix32 } from '../keys/fingerprint.js';
import { keyHash } from '../keys/keyHash.js';
import { evidenceSchema } from '../keys/stepEvidence.js';
import { MAX_TRACKED_PERIOD } from '../options/stepLoopDetectorOptions.js';

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
        // A turn's pair key (a number since observe37o, written again since hook37o) is not read
        // from a snapshot this schema validates: left out here, it is dropped and computed again
        // from the action key and the outcome (an older snapshot's string too). Only a sealed
        // snapshot, this build's own output, is restored with the key it holds.
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
    // A hash since observe37o; an older snapshot's `actionKey\u0001outcome` strings are read as their hash.
    pairCounts: z.array(z.tuple([z.union([hash, z.string()]), int.positive()])),
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

/**
 * The pair key of a turn: its action key's {@link keyHash} and its outcome, as one 32-bit hash (the
 * action's identity is a 32-bit hash already where the run's seen actions are kept).
 */
export function pairKeyOf(actionHash: number, outcomeKey: number): number {
  return mix32(actionHash ^ Math.imul(outcomeKey ^ 0x27d4eb2f, 0x9e3779b1));
}

/** The pair key an older snapshot wrote as `actionKey\u0001outcome`, as {@link pairKeyOf} gives it now. */
export function pairKeyOfText(text: string): number {
  const at = text.lastIndexOf('\u0001');
  return at === -1
    ? pairKeyOf(keyHash(text), 0)
    : pairKeyOf(keyHash(text.slice(0, at)), Number(text.slice(at + 1)) >>> 0);
}
