import type { IterationObservation, SignalName, SignalReading, SignalStatus } from './breakerTypes.js';

/** The persisted part of a signal: its streak and the key the streak is about. */
export interface SignalSnapshot {
  /** Stalled iterations in a row. */
  streak: number;
  /** What the streak is about (an error signature, a task id); `null` when nothing. */
  key: string | null;
}

/** One signal's judgement of one iteration, before the streak is counted. */
export interface SignalJudgement {
  /** See {@link SignalStatus}. */
  status: SignalStatus;
  /** For `stalled`: the streak continues only while the key stays the same. */
  key?: string;
  /** What the signal saw, in words. */
  detail: string;
}

/**
 * One stagnation signal: a small strategy that judges an iteration and keeps a streak of stalled
 * iterations with the same key. The {@link StagnationBreaker} trips when a streak reaches its threshold.
 * @example
 * class AlwaysStalled extends StagnationSignal {
 *   readonly name = 'no_file_changes';
 *   protected judge() { return { status: 'stalled', key: 'x', detail: 'stalled' } as const; }
 * }
 */
export abstract class StagnationSignal {
  /** Which signal this is. */
  abstract readonly name: SignalName;
  private streak = 0;
  private key: string | null = null;

  /** @param threshold - the streak that trips the breaker (integer ≥ 1). */
  constructor(readonly threshold: number) {}

  /** Judges `observation` (without changing state). */
  protected abstract judge(observation: IterationObservation): SignalJudgement;

  /** Judges `observation` and updates the streak. */
  observe(observation: IterationObservation): SignalReading {
    const judgement = this.judge(observation);
    if (judgement.status === 'stalled') {
      const key = judgement.key ?? '';
      this.streak = key === this.key ? this.streak + 1 : 1;
      this.key = key;
    } else if (judgement.status !== 'unavailable') {
      this.streak = 0;
      this.key = null;
    }
    return {
      signal: this.name,
      status: judgement.status,
      streak: this.streak,
      threshold: this.threshold,
      detail: judgement.detail,
    };
  }

  /** Forgets the streak: after a trip or a reset, a new stagnation needs fresh evidence. */
  reset(): void {
    this.streak = 0;
    this.key = null;
  }

  /** The streak, for persistence. */
  snapshot(): SignalSnapshot {
    return { streak: this.streak, key: this.key };
  }

  /** Restores a {@link snapshot}. */
  restore(snapshot: SignalSnapshot): void {
    this.streak = snapshot.streak;
    this.key = snapshot.key;
  }
}
