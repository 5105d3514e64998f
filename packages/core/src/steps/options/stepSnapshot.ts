import { z } from 'zod';
import { InvalidInputError } from '../../kernel/errors.js';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { ActionKind } from '../actions/actionKind.js';

/** Print texts read from one edit, at most, each way (see `printEdit`): bounds a pending action's. */
export const MAX_EDIT_PRINTS = 16;

/**
 * `format` of every {@link StepDetectorSnapshot}: what tells a snapshot apart from any other JSON.
 */
export const STEP_SNAPSHOT_FORMAT = 'loopguard.step-detector';

/**
 * Version of the snapshots this build writes. Bump it whenever the state of any part (the detector,
 * its history, its ladder or a rule) changes shape or meaning, and either add a reader for the old
 * version to {@link SNAPSHOT_UPGRADES} or let old snapshots be discarded.
 */
export const STEP_SNAPSHOT_VERSION = 3;

/** A JSON value: what every part's state must be, so that a snapshot survives `JSON.stringify`. */
export type SnapshotJson =
  | null
  | boolean
  | number
  | string
  | SnapshotJson[]
  | { [key: string]: SnapshotJson };

/**
 * A part of {@link StepLoopDetector} that keeps incremental state: the history, the ladder, and any
 * rule that remembers something between steps. Each part writes and reads its own state, so a new
 * stateful part plugs in without the detector knowing its shape.
 *
 * The contract, held by a property test: `restore(JSON.parse(JSON.stringify(snapshot())))` on a
 * part built with the same options gives a part that answers every later step as the original
 * would. Caches that only save work (memos) are not state and are left out.
 */
export interface SnapshotPart {
  /** The part's state as plain JSON: compact, never the run's raw texts in full. */
  snapshot(): SnapshotJson;
  /**
   * Replaces the part's state with one that {@link snapshot} returned.
   * @throws InvalidInputError naming the field when `state` is not such a state.
   */
  restore(state: unknown): void;
}

/** The action waiting for its observation when the snapshot was taken. */
export interface PendingActionState {
  /** Its step number. */
  step: number;
  /** Its 1-based tool call number (absent in an older snapshot). */
  call?: number;
  /** The tool called. */
  tool: string;
  /** The call's input as text. */
  text: string;
  /** Its action key (`actionKey`). */
  key: string;
  /** Whether the call is exempt (a polling command or tool): never judged. */
  exempt: boolean;
  /** What the action does to the work (see `classifyAction`). */
  kind: ActionKind;
  /** For an editor's change, the print calls it adds and takes out (see `printEdit`; absent: none). */
  prints?: { added: string[]; removed: string[] };
  /** The search of one file the command line ends with (see `searchOf`; absent: none). */
  search?: { file: string; pattern: string };
  /** For a change, what it does to debug prints (see `printWorkOf`; absent: none read). */
  printWork?: { typed: string[]; rewritten?: string[] };
  /** For a change, the names it writes, packed (see `writtenNames`; absent: it may act on anything). */
  written?: string;
}

/**
 * What {@link StepLoopDetector.snapshot} returns: the detector's incremental state as plain JSON, to
 * be stored between processes (a hook call per step) and given to {@link StepLoopDetector.restore}.
 * Its size is bounded by the run's distinct actions and results, never by its length in steps.
 */
export interface StepDetectorSnapshot {
  /** Always {@link STEP_SNAPSHOT_FORMAT}. */
  format: typeof STEP_SNAPSHOT_FORMAT;
  /** {@link STEP_SNAPSHOT_VERSION} of the build that wrote it. */
  version: number;
  /** Steps observed. */
  steps: number;
  /** Tool calls observed (absent in an older snapshot: counted from there on). */
  calls?: number;
  /** The per-run switch (`setEnabled`). */
  enabled: boolean;
  /** The action waiting for its observation, if any. */
  pending: PendingActionState | null;
  /** State of the history. */
  history: SnapshotJson;
  /** State of the ladder. */
  ladder: SnapshotJson;
  /** State of each stateful rule, by its `loopType`. */
  rules: { [loopType: string]: SnapshotJson };
}

/**
 * Readers of older versions: `SNAPSHOT_UPGRADES[n]` turns a version-`n` snapshot into a
 * version-`n + 1` one. A version with no reader (and any newer version) is discarded.
 * Version 1 (progress judged by whether a turn's text was new) has no reader: its history holds
 * keys of another kind, which cannot be turned into version 2's line fingerprints. Version 2 had no
 * probe ledger: it is read as a run with no probes and no changes yet, and a pending action as a read.
 */
export const SNAPSHOT_UPGRADES: Readonly<Record<number, (snapshot: Record<string, unknown>) => unknown>> = {
  2: (snapshot) => {
    const history = snapshot.history as Record<string, unknown> | null;
    const pending = snapshot.pending as Record<string, unknown> | null;
    return {
      ...snapshot,
      version: 3,
      history:
        history !== null && typeof history === 'object'
          ? {
              ...history,
              probes: {
                changes: 0,
                learned: 0,
                novel: 0,
                edited: [],
                own: [],
                recentChanges: [],
                probes: [],
              },
            }
          : history,
      pending:
        pending !== null && typeof pending === 'object'
          ? { ...pending, kind: { kind: 'read', probe: '', paths: [] } }
          : pending,
    };
  },
};

// built on first use (see parseSnapshotPart)
const envelopeSchema = lazySchema(() =>
  z.object({
    format: z.literal(STEP_SNAPSHOT_FORMAT),
    version: z.literal(STEP_SNAPSHOT_VERSION),
    steps: z.number().int().nonnegative(),
    calls: z.number().int().nonnegative().optional(),
    enabled: z.boolean(),
    pending: z
      .object({
        step: z.number().int().nonnegative(),
        call: z.number().int().nonnegative().optional(),
        tool: z.string(),
        text: z.string(),
        key: z.string(),
        exempt: z.boolean(),
        kind: z.object({
          kind: z.enum(['change', 'probe', 'read']),
          probe: z.string(),
          paths: z.array(z.string()),
          fullWrite: z.boolean().optional(),
          editor: z.boolean().optional(),
        }),
        prints: z
          .object({
            added: z.array(z.string()).max(MAX_EDIT_PRINTS),
            removed: z.array(z.string()).max(MAX_EDIT_PRINTS),
          })
          .optional(),
        search: z.object({ file: z.string(), pattern: z.string() }).optional(),
        printWork: z
          .object({
            typed: z.array(z.string()).max(MAX_EDIT_PRINTS),
            rewritten: z.array(z.string()).max(MAX_EDIT_PRINTS).optional(),
          })
          .optional(),
        written: z
          .string()
          .regex(/^[A-Za-z0-9+/]*={0,2}$/)
          .optional(),
      })
      .nullable(),
    history: z.unknown(),
    ladder: z.unknown(),
    rules: z.record(z.string(), z.unknown()),
  }),
);

/**
 * The snapshot brought to the current version, or `undefined` when its version cannot be read (an
 * older one without a reader, or a newer one): the caller starts afresh then.
 * @throws InvalidInputError when `snapshot` is not a step detector snapshot, or is malformed.
 */
export function readSnapshotEnvelope(snapshot: unknown): StepDetectorSnapshot | undefined {
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) {
    throw new InvalidInputError('snapshot must be an object returned by StepLoopDetector.snapshot()');
  }
  let current = snapshot as Record<string, unknown>;
  if (current.format !== STEP_SNAPSHOT_FORMAT) {
    throw new InvalidInputError(`snapshot.format must be "${STEP_SNAPSHOT_FORMAT}"`);
  }
  while (typeof current.version === 'number' && current.version < STEP_SNAPSHOT_VERSION) {
    const upgrade = SNAPSHOT_UPGRADES[current.version];
    if (upgrade === undefined) return undefined;
    current = upgrade(current) as Record<string, unknown>;
  }
  if (typeof current.version === 'number' && current.version > STEP_SNAPSHOT_VERSION) return undefined;
  return parseSnapshotPart(envelopeSchema, current, 'snapshot') as StepDetectorSnapshot;
}

/** Set only while {@link restoreSealedParts} runs: the parts read the state as this build wrote it. */
let restoringSealed = false;

/**
 * Runs `restore` with every part's state taken as written, not validated again: only for a snapshot
 * this build sealed and that is unchanged since (see `unsealSnapshot`).
 */
export function restoreSealedParts<T>(restore: () => T): T {
  restoringSealed = true;
  try {
    return restore();
  } finally {
    restoringSealed = false;
  }
}

/**
 * Validates one part's state against its zod schema (taken as written while a sealed snapshot of
 * this build is restored: {@link restoreSealedParts}).
 *
 * The parts' schemas are made on first use (`lazySchema`): each is built the first time a snapshot
 * that is not sealed is restored, not when the module is loaded. The hook's startup snapshot then
 * holds none of them (its calls restore sealed snapshots), nor zod's code (docs/decisions.md, issue
 * 37 §3, fifth and sixth rounds).
 * @param schema - the part's schema, made on first call.
 * @param where - the part's path for the error message, for example `snapshot.history`.
 * @throws InvalidInputError naming the first offending field.
 */
export function parseSnapshotPart<S extends z.ZodType>(
  schema: () => S,
  state: unknown,
  where: string,
): z.output<S> {
  if (restoringSealed) return state as z.output<S>;
  const parsed = schema().safeParse(state);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [where, ...(issue?.path ?? []).map(String)].join('.');
  throw new InvalidInputError(`${path} ${issue?.message ?? 'is invalid'}`);
}
