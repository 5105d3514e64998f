import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { StepHistory } from '../history/stepHistory.js';
import type { Turn } from '../history/turn.js';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from '../options/stepSnapshot.js';
import type { LoopProgress, StepLoopType } from './StepRule.js';

/** What the ladder says about a rule hit: `nudge` first, `stop` when the loop goes on. */
export type LadderRung = 'continue' | 'nudge' | 'stop';

/**
 * The ladder, not a guillotine: the first hit of a loop nudges; when the loop goes on for
 * `stopAfter` more hits after the nudge could be heard (hits at later steps than the nudge), it
 * stops. An informative turn puts the ladder back on the ground.
 *
 * @example
 * const ladder = new StepLadder(1);
 * ladder.climb(5, 'same_error'); // 'nudge'
 * ladder.climb(8, 'same_error'); // 'stop'
 */
export class StepLadder implements SnapshotPart {
  private nudgedAt = -1;
  private hitsSinceNudge = 0;
  private nudgedType: StepLoopType | null = null;
  private progressBy: LoopProgress = 'turn';

  /** @param stopAfter - hits after the nudge that make a stop (integer ≥ 1). */
  constructor(private readonly stopAfter: number) {}

  /** Whether a nudge was given and nothing was learned since. */
  get isNudged(): boolean {
    return this.nudgedAt !== -1;
  }

  /** The loop the standing nudge was for (`null`: none). */
  get nudgedFor(): StepLoopType | null {
    return this.nudgedType;
  }

  /** What counts as progress for the standing nudge (`turn` when none: any informative turn). */
  get progress(): LoopProgress {
    return this.progressBy;
  }

  /** The ladder's state: the step of the nudge (`-1`: none), its loop, and the hits since. */
  snapshot(): SnapshotJson {
    return {
      nudgedAt: this.nudgedAt,
      hitsSinceNudge: this.hitsSinceNudge,
      nudgedType: this.nudgedType,
      progress: this.progressBy,
    };
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const parsed = parseSnapshotPart(ladderStateSchema, state, 'snapshot.ladder');
    this.nudgedAt = parsed.nudgedAt;
    this.hitsSinceNudge = parsed.hitsSinceNudge;
    this.nudgedType = (parsed.nudgedType ?? null) as StepLoopType | null;
    this.progressBy = parsed.progress;
  }

  /**
   * Records one hit of `loopType` at `step` and returns the rung it reaches; `progress` is what
   * ends the loop once nudged (default `turn`); `nudged`: the loop was nudged before (see
   * `RuleHit.nudged`), so this hit is its first since that nudge, not a new nudge: it stops when
   * `stopAfter` is 1 (default `false`).
   */
  climb(step: number, loopType: StepLoopType, progress: LoopProgress = 'turn', nudged = false): LadderRung {
    if (this.nudgedAt === -1 && nudged) {
      // the loop's first hit since its nudge: it counts towards `stopAfter` as any such hit does
      this.nudgedAt = step;
      this.nudgedType = loopType;
      this.progressBy = progress;
      this.hitsSinceNudge = 1;
      return this.hitsSinceNudge >= this.stopAfter ? 'stop' : 'continue';
    }
    if (this.nudgedAt === -1) {
      this.nudgedAt = step;
      this.nudgedType = loopType;
      this.progressBy = progress;
      return 'nudge';
    }
    if (step > this.nudgedAt) this.hitsSinceNudge++;
    return this.hitsSinceNudge >= this.stopAfter ? 'stop' : 'continue';
  }

  /**
   * Whether the latest `turn` (recorded in `history`) ends the nudged loop. After an
   * outcome-stagnation nudge only a probe result that moved does (an edit's new text, a read, a new
   * file touched are what the loop is made of; a result moved by a new question ends the nudge but
   * not the loop: the outcome rule's next hit on it stops, see `RuleHit.nudged`); after a refused tool's, only an attempt that goes
   * through or is refused otherwise; after a call retried with the same failure, only a change or
   * that call going otherwise; else any informative turn but a change that went through silently:
   * it says the command ran, nothing about the loop (an effect, not news), so the loop's next hit
   * stops.
   */
  endedBy(turn: Turn, history: StepHistory): boolean {
    if (this.progressBy === 'probe') return history.probes.latest.news || history.probes.latest.asked;
    if (this.progressBy === 'verdict') return history.probes.latest.verdictNews;
    if (this.progressBy === 'rejection') return history.rejections.broke;
    if (this.progressBy === 'retry') return history.retries.broke;
    if (this.progressBy === 'search') return history.searches.broke;
    if (this.progressBy === 'debug') return history.unseenPrints.broke;
    return turn.informative && !(turn.applied && turn.quiet);
  }

  /** Something was learned: the next hit nudges again. */
  reset(): void {
    this.nudgedAt = -1;
    this.hitsSinceNudge = 0;
    this.nudgedType = null;
    this.progressBy = 'turn';
  }
}

// built on first use (see parseSnapshotPart)
const ladderStateSchema = lazySchema(() =>
  z.object({
    nudgedAt: z.number().int().min(-1),
    hitsSinceNudge: z.number().int().nonnegative(),
    nudgedType: z.string().nullable().optional(),
    progress: z.enum(['turn', 'probe', 'verdict', 'rejection', 'retry', 'search', 'debug']).default('turn'),
  }),
);
