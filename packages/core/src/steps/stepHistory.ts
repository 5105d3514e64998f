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

/** The first observation of a new action, not normalised yet. */
interface Deferred {
  pairKey: string;
  output: string;
  error: boolean;
}

/**
 * The run as the rules need it, kept incrementally so that every update costs the same whatever
 * the run's length: the recent turns, which turns are fresh, how often each turn and message
 * occurred since the last fresh turn, and for each period 2..8 how many trailing turns repeat the
 * turn one period earlier.
 *
 * A turn is *fresh* when this action never had this observation before in the run: a new command,
 * or a known command with a new result. Fresh evidence ends every loop in progress.
 */
export class StepHistory {
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
  settle(actionKey: string, keyOf: (output: string, error: boolean) => string): void {
    const entry = this.deferred.get(actionKey);
    if (entry === undefined) return;
    this.deferred.delete(actionKey);
    const observationKey = keyOf(entry.output, entry.error);
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
}
