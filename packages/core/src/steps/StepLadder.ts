import { z } from 'zod';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from './stepSnapshot.js';

/** What the ladder says about a rule hit: `nudge` first, `stop` when the loop goes on. */
export type LadderRung = 'continue' | 'nudge' | 'stop';

/**
 * The ladder, not a guillotine: the first hit of a loop nudges; when the loop goes on for
 * `stopAfter` more hits with nothing fresh, it stops. Fresh evidence (a new action or a new
 * observation) puts the ladder back on the ground.
 *
 * @example
 * const ladder = new StepLadder(2);
 * ladder.climb(); // 'nudge'
 * ladder.climb(); // 'continue' (the nudge is still being given its chance)
 * ladder.climb(); // 'stop'
 */
export class StepLadder implements SnapshotPart {
  private nudged = false;
  private hitsSinceNudge = 0;

  /** @param stopAfter - hits after the nudge that make a stop (integer ≥ 1). */
  constructor(private readonly stopAfter: number) {}

  /** Whether a nudge was given and no fresh evidence has come since. */
  get isNudged(): boolean {
    return this.nudged;
  }

  /** Records one hit and returns the rung it reaches. */
  climb(): LadderRung {
    if (!this.nudged) {
      this.nudged = true;
      return 'nudge';
    }
    this.hitsSinceNudge++;
    return this.hitsSinceNudge >= this.stopAfter ? 'stop' : 'continue';
  }

  /** Fresh evidence: the next hit nudges again. */
  reset(): void {
    this.nudged = false;
    this.hitsSinceNudge = 0;
  }

  /** The ladder's state: whether a nudge was given, and the hits since. */
  snapshot(): SnapshotJson {
    return { nudged: this.nudged, hitsSinceNudge: this.hitsSinceNudge };
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const parsed = parseSnapshotPart(ladderStateSchema, state, 'snapshot.ladder');
    this.nudged = parsed.nudged;
    this.hitsSinceNudge = parsed.hitsSinceNudge;
  }
}

const ladderStateSchema = z.object({ nudged: z.boolean(), hitsSinceNudge: z.number().int().nonnegative() });
