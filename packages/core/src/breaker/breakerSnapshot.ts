import { z } from 'zod';
import type { BreakerState, SignalName } from './breakerTypes.js';
import type { SignalSnapshot } from './StagnationSignal.js';

/**
 * The persisted state of a {@link StagnationBreaker}: enough to resume a run where it stopped.
 * @example { state: 'OPEN', openedAt: 1700000000000, opens: 1, reason: 'no_file_changes: …', signals: { … } }
 */
export interface BreakerSnapshot {
  /** The state. */
  state: BreakerState;
  /** When it last opened, epoch ms; `null` when it never did (or was reset). */
  openedAt: number | null;
  /** How many times it opened in this run (kept across resets). */
  opens: number;
  /** Why it last changed state. */
  reason: string | null;
  /** Each signal's streak. */
  signals: Partial<Record<SignalName, SignalSnapshot>>;
}

const signalSnapshotSchema = z.strictObject({
  streak: z.number().int().min(0),
  key: z.string().nullable(),
});

/** zod schema of a {@link BreakerSnapshot}: what a persisted state must look like to be trusted. */
export const breakerSnapshotSchema = z.strictObject({
  state: z.enum(['CLOSED', 'HALF_OPEN', 'OPEN']),
  openedAt: z.number().finite().nullable(),
  opens: z.number().int().min(0),
  reason: z.string().nullable(),
  signals: z.partialRecord(
    z.enum([
      'no_file_changes',
      'same_error',
      'task_not_progressing',
      'completion_without_evidence',
      'step_loop_stopped',
      'permission_denied',
      'test_only',
    ]),
    signalSnapshotSchema,
  ),
});

/**
 * Reads a persisted snapshot: the snapshot when valid, else `null` with the reason in words.
 * @example parseBreakerSnapshot('garbage').problem; // 'the persisted breaker state is corrupt: …'
 */
export function parseBreakerSnapshot(
  value: unknown,
): { snapshot: BreakerSnapshot; problem: null } | { snapshot: null; problem: string } {
  if (value === null || value === undefined) {
    return { snapshot: null, problem: 'no persisted breaker state was found' };
  }
  const parsed = breakerSnapshotSchema.safeParse(value);
  if (parsed.success) return { snapshot: parsed.data as BreakerSnapshot, problem: null };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at "${issue.path.map(String).join('.')}"` : '';
  return {
    snapshot: null,
    problem: `the persisted breaker state is corrupt${where}: ${issue?.message ?? 'invalid'}`,
  };
}
