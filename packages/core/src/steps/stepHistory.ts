import { z } from 'zod';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from './stepSnapshot.js';

/** What a verdict shows of one step of the loop: enough to explain it, never a whole output. */
export interface StepEvidence {
  /** 0-based index of the step in the run (the observation's index for a turn). */
  step: number;
  /** Tool of the action, when the evidence is a turn. */
  tool?: string;
  /** The action's input, shortened. */
  action?: string;
  /** The observation's output, shortened. */
  output?: string;
  /** Whether the observation was a failure. */
  error?: boolean;
  /** The message text, shortened, when the evidence is a message. */
  message?: string;
}

/** One tool call with its result, as the rules see it. */
export interface Turn {
  /** Step index of the observation (or of the action when no observation followed). */
  step: number;
  /** Normalised identity of the action; `''` for an observation without an action. */
  actionKey: string;
  /** Normalised identity of the observation; `''` when no observation followed the action. */
  observationKey: string;
  /** `actionKey` and `observationKey` together. */
  pairKey: string;
  /** Whether the observation was a failure. */
  error: boolean;
  /** Shortened texts for evidence. */
  evidence: StepEvidence;
}

/** One message, as the rules see it. */
export interface MessageTurn {
  step: number;
  key: string;
  text: string;
  evidence: StepEvidence;
}

/** Longest periodic pattern tracked (cycle length). */
export const MAX_TRACKED_PERIOD = 8;
const RECENT_CAPACITY = 64;
/** Most first observations of new actions kept un-normalised at a time; see {@link StepHistory.defer}. */
export const MAX_DEFERRED = 256;

/** The first observation of a new action, not normalised yet (or normalised for a snapshot). */
interface Deferred {
  pairKey: string;
  output: string;
  error: boolean;
  /** Its key, once computed for a snapshot (the raw output is not kept in a snapshot). */
  observationKey?: string;
}

/** How an observation's key is computed (the detector's memoised `observationKey`). */
export type ObservationKeyOf = (output: string, error: boolean) => string;

/**
 * The run as the rules need it, kept incrementally so that every update costs the same whatever
 * the run's length: the recent turns, which turns are fresh, how often each turn and message
 * occurred since the last fresh turn, and for each period 2..8 how many trailing turns repeat the
 * turn one period earlier.
 *
 * A turn is *fresh* when this action never had this observation before in the run: a new command,
 * or a known command with a new result. Fresh evidence ends every loop in progress.
 */
export class StepHistory implements SnapshotPart {
  /** Recent turns, oldest first (at most 64). */
  readonly recent: Turn[] = [];
  /** Pair keys seen in the run. */
  private readonly seenPairs = new Set<string>();
  /** Action keys seen in the run. */
  private readonly seenActions = new Set<string>();
  /** First observations of new actions, by action key, oldest first. */
  private readonly deferred = new Map<string, Deferred>();
  private deferredCount = 0;
  /** Occurrences of each pair key since the last fresh turn (inclusive). */
  private readonly pairCounts = new Map<string, number>();
  /** Occurrences of each message key since the last fresh turn. */
  private readonly messageCounts = new Map<string, number>();
  /** Messages since the last fresh turn, by key: the first one, for evidence. */
  private readonly firstMessages = new Map<string, MessageTurn>();
  /** `periodRuns[p]`: trailing turns equal to the turn `p` before them. */
  private readonly periodRuns: number[] = new Array(MAX_TRACKED_PERIOD + 1).fill(0);
  /** Step index of the last fresh turn; `-1` before any. */
  lastFreshStep = -1;
  /** Turns recorded. */
  turnCount = 0;

  /** @param keyOf - computes an observation's key when a deferred one is settled. */
  constructor(private readonly keyOf: ObservationKeyOf) {}

  /** Whether an action with this key was seen in the run. */
  knowsAction(actionKey: string): boolean {
    return this.seenActions.has(actionKey);
  }

  /**
   * A placeholder observation key for the first observation of a new action. The turn is fresh
   * whatever its observation says, so normalising it can wait until the action comes again (most
   * actions of a run never do): {@link settle} does it then. Of the deferred observations, the 256
   * newest are kept; an older one is dropped, and its action's next result counts as new.
   */
  defer(actionKey: string, output: string, error: boolean): string {
    const observationKey = `\u0002${this.deferredCount++}`;
    this.deferred.set(actionKey, { pairKey: `${actionKey}\u0001${observationKey}`, output, error });
    if (this.deferred.size > MAX_DEFERRED) {
      const oldest = this.deferred.keys().next().value as string;
      this.deferred.delete(oldest);
    }
    return observationKey;
  }

  /** Normalises the deferred first observation of `actionKey`, if any, everywhere it is recorded. */
  settle(actionKey: string): void {
    const entry = this.deferred.get(actionKey);
    if (entry === undefined) return;
    this.deferred.delete(actionKey);
    const observationKey = entry.observationKey ?? this.keyOf(entry.output, entry.error);
    const pairKey = `${actionKey}\u0001${observationKey}`;
    this.seenPairs.delete(entry.pairKey);
    this.seenPairs.add(pairKey);
    for (const turn of this.recent) {
      if (turn.pairKey !== entry.pairKey) continue;
      turn.pairKey = pairKey;
      turn.observationKey = observationKey;
    }
    const count = this.pairCounts.get(entry.pairKey);
    if (count !== undefined) {
      this.pairCounts.delete(entry.pairKey);
      this.pairCounts.set(pairKey, (this.pairCounts.get(pairKey) ?? 0) + count);
    }
  }

  /** Records a turn; returns whether it was fresh. */
  addTurn(turn: Turn): boolean {
    this.seenActions.add(turn.actionKey);
    const fresh = !this.seenPairs.has(turn.pairKey);
    if (fresh) {
      this.seenPairs.add(turn.pairKey);
      if (this.pairCounts.size > 0) this.pairCounts.clear();
      if (this.messageCounts.size > 0) {
        this.messageCounts.clear();
        this.firstMessages.clear();
      }
      this.lastFreshStep = turn.step;
    }
    this.pairCounts.set(turn.pairKey, (this.pairCounts.get(turn.pairKey) ?? 0) + 1);
    const n = this.recent.length;
    for (let period = 1; period <= MAX_TRACKED_PERIOD; period++) {
      const earlier = this.recent[n - period];
      this.periodRuns[period] =
        earlier !== undefined && earlier.pairKey === turn.pairKey ? (this.periodRuns[period] ?? 0) + 1 : 0;
    }
    this.recent.push(turn);
    if (this.recent.length > RECENT_CAPACITY) this.recent.splice(0, this.recent.length - RECENT_CAPACITY / 2);
    this.turnCount++;
    return fresh;
  }

  /** Records a message. */
  addMessage(message: MessageTurn): void {
    const count = (this.messageCounts.get(message.key) ?? 0) + 1;
    this.messageCounts.set(message.key, count);
    if (count === 1) this.firstMessages.set(message.key, message);
  }

  /** Occurrences of the message `key` since the last fresh turn (inclusive). */
  messageCount(key: string): number {
    return this.messageCounts.get(key) ?? 0;
  }

  /** The first message with `key` since the last fresh turn. */
  firstMessage(key: string): MessageTurn | undefined {
    return this.firstMessages.get(key);
  }

  /** Occurrences of `pairKey` since the last fresh turn (inclusive). */
  pairCount(pairKey: string): number {
    return this.pairCounts.get(pairKey) ?? 0;
  }

  /** Trailing turns equal to the turn `period` turns before them (0 when the last turn breaks the pattern). */
  periodRun(period: number): number {
    return this.periodRuns[period] ?? 0;
  }

  /** The last `count` turns, oldest first. */
  last(count: number): Turn[] {
    return this.recent.slice(Math.max(0, this.recent.length - count));
  }

  /** The newest earlier turns with `pairKey` plus the last one, oldest first, at most `count`. */
  lastWithPair(pairKey: string, count: number): Turn[] {
    const found: Turn[] = [];
    for (let i = this.recent.length - 1; i >= 0 && found.length < count; i--) {
      const turn = this.recent[i] as Turn;
      if (turn.pairKey === pairKey) found.push(turn);
    }
    return found.reverse();
  }
  /**
   * The history's state as plain JSON. Deferred observations are stored by their key, never by
   * their raw output, and a first message without its full text: a snapshot's size follows the
   * run's distinct turns, not its outputs.
   */
  snapshot(): SnapshotJson {
    const deferred: SnapshotJson[] = [];
    for (const [actionKey, entry] of this.deferred) {
      entry.observationKey ??= this.keyOf(entry.output, entry.error);
      entry.output = '';
      deferred.push([actionKey, entry.pairKey, entry.observationKey]);
    }
    return {
      recent: this.recent.map((turn) => ({
        step: turn.step,
        actionKey: turn.actionKey,
        observationKey: turn.observationKey,
        error: turn.error,
        evidence: { ...turn.evidence },
      })),
      seenPairs: [...this.seenPairs],
      seenActions: [...this.seenActions],
      deferred,
      deferredCount: this.deferredCount,
      pairCounts: [...this.pairCounts],
      messageCounts: [...this.messageCounts],
      firstMessages: [...this.firstMessages.values()].map((m) => ({
        step: m.step,
        key: m.key,
        evidence: { ...m.evidence },
      })),
      periodRuns: [...this.periodRuns],
      lastFreshStep: this.lastFreshStep,
      turnCount: this.turnCount,
    };
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(historyStateSchema, state, 'snapshot.history');
    this.recent.splice(0, this.recent.length, ...s.recent.map(restoreTurn));
    replaceSet(this.seenPairs, s.seenPairs);
    replaceSet(this.seenActions, s.seenActions);
    this.deferred.clear();
    for (const [actionKey, pairKey, observationKey] of s.deferred) {
      this.deferred.set(actionKey, { pairKey, output: '', error: false, observationKey });
    }
    this.deferredCount = s.deferredCount;
    replaceMap(this.pairCounts, s.pairCounts);
    replaceMap(this.messageCounts, s.messageCounts);
    this.firstMessages.clear();
    for (const m of s.firstMessages) {
      this.firstMessages.set(m.key, {
        step: m.step,
        key: m.key,
        text: '',
        evidence: restoreEvidence(m.evidence),
      });
    }
    this.periodRuns.splice(0, this.periodRuns.length, ...s.periodRuns);
    this.lastFreshStep = s.lastFreshStep;
    this.turnCount = s.turnCount;
  }
}

const evidenceSchema = z.object({
  step: z.number(),
  tool: z.string().optional(),
  action: z.string().optional(),
  output: z.string().optional(),
  error: z.boolean().optional(),
  message: z.string().optional(),
});
const countsSchema = z.array(z.tuple([z.string(), z.number().int().positive()]));

const historyStateSchema = z.object({
  recent: z.array(
    z.object({
      step: z.number().int(),
      actionKey: z.string(),
      observationKey: z.string(),
      error: z.boolean(),
      evidence: evidenceSchema,
    }),
  ),
  seenPairs: z.array(z.string()),
  seenActions: z.array(z.string()),
  deferred: z.array(z.tuple([z.string(), z.string(), z.string()])),
  deferredCount: z.number().int().nonnegative(),
  pairCounts: countsSchema,
  messageCounts: countsSchema,
  firstMessages: z.array(z.object({ step: z.number().int(), key: z.string(), evidence: evidenceSchema })),
  periodRuns: z.array(z.number().int().nonnegative()).length(MAX_TRACKED_PERIOD + 1),
  lastFreshStep: z.number().int(),
  turnCount: z.number().int().nonnegative(),
});

function restoreTurn(turn: z.output<typeof historyStateSchema>['recent'][number]): Turn {
  return {
    ...turn,
    evidence: restoreEvidence(turn.evidence),
    pairKey: `${turn.actionKey}\u0001${turn.observationKey}`,
  };
}

function restoreEvidence(evidence: z.output<typeof evidenceSchema>): StepEvidence {
  return Object.fromEntries(
    Object.entries(evidence).filter(([, value]) => value !== undefined),
  ) as unknown as StepEvidence;
}

function replaceSet(set: Set<string>, values: readonly string[]): void {
  set.clear();
  for (const value of values) set.add(value);
}

function replaceMap(map: Map<string, number>, entries: ReadonlyArray<readonly [string, number]>): void {
  map.clear();
  for (const [key, value] of entries) map.set(key, value);
}
