import { jaccard, sketchOf, targetsOf } from '../history/sketch.js';
import type { StepHistory, Turn } from '../history/stepHistory.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/** The turn's sketch, computed once. */
export function turnSketch(turn: Turn) {
  if (turn.sketch === undefined) turn.sketch = sketchOf(turn.actionText);
  return turn.sketch;
}

/** The files the turn's action names, computed once. */
export function turnTargets(turn: Turn): string {
  if (turn.targets === undefined) turn.targets = targetsOf(turn.actionText);
  return turn.targets;
}

/** The numbers of an action's text: where it writes (a line range, a position), not what. */
const DIGITS = /\d+/g;

/** The turn's action text without its numbers (what a change writes, not where), computed once. */
function placedText(turn: Turn): string {
  if (turn.placedText === undefined) turn.placedText = turn.actionText.replace(DIGITS, '');
  return turn.placedText;
}

/** The changes of `turns` that went through and left the work in a state no other of them did. */
function placementsOf(turns: readonly Turn[]): Turn[] {
  const states = new Map<number, number>();
  for (const t of turns) if (t.applied) states.set(t.state, (states.get(t.state) ?? 0) + 1);
  return turns.filter((t) => t.applied && states.get(t.state) === 1);
}

/**
 * Near-duplicate retries: `threshold` stale turns with the same outcome whose actions are
 * near-duplicates of this one (word-set Jaccard ≥ `similarity`, see `sketch.ts`): `edit 71:71`,
 * `edit 70:70`, `edit 69:69` rewriting the same block; a search reworded each time with "No matches
 * found" each time. Actions that name different files (`git checkout a.py`, `git checkout b.py`) are
 * one command over many files, never near-duplicates. A change that went through and writes the
 * same text as another change of the group, only at another place (only its numbers differ: a
 * line range), counts only when its reply shows the work in a state another change of the group
 * left it in too (`Turn.state`): placing one block at ranges where it leaves the work where no
 * other placement did moves the work; placements that bring it back (the same block rewritten to
 * the same file, a file doubled, then restored, again) are retries. Changes in other words
 * (rewrites) count as any turn. Compared only with the turns since the last informative one (at most 64).
 *
 * @example new NearDuplicateRule(3, 0.5) // `search_dir "null TreeSet"`, `search_dir "TreeSet null value"`, ... no matches: hit
 */
export class NearDuplicateRule implements StepRule {
  readonly loopType = 'near_duplicate' as const;

  /**
   * @param threshold - near-duplicate turns with one outcome that make a loop (integer ≥ 2).
   * @param similarity - least estimated Jaccard similarity of two actions' word sets (0..1).
   */
  constructor(
    private readonly threshold: number,
    private readonly similarity: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn' || event.turn.error || event.turn.informative || event.turn.actionKey === '')
      return null;
    const { turn } = event;
    if ((history.outcomeCounts.get(turn.outcomeKey) ?? 0) < this.threshold) return null;
    const sketch = turnSketch(turn);
    const targets = turnTargets(turn);
    const turns = history.lastMatching(
      (t) =>
        t.outcomeKey === turn.outcomeKey &&
        t.actionKey !== '' &&
        t.tool === turn.tool &&
        !t.error &&
        (t === turn || (turnTargets(t) === targets && jaccard(sketch, turnSketch(t)) >= this.similarity)),
      Number.POSITIVE_INFINITY,
    );
    if (turns.length < this.threshold) return null;
    // The same text written at another place (only the numbers differ: a line range) is a retry
    // only when it leaves the work where another change of the group left it: a placement that
    // leaves it where none did moved the work. Changes in other words are rewrites, judged as before.
    const placements = turns.some((t) => t.applied) ? placementsOf(turns) : [];
    if (placements.length > 0) {
      const texts = new Map<string, number>();
      for (const t of turns) if (t.applied) texts.set(placedText(t), (texts.get(placedText(t)) ?? 0) + 1);
      const moved = new Set(placements.filter((t) => (texts.get(placedText(t)) ?? 0) > 1));
      if (moved.size > 0) {
        const retries = turns.filter((t) => !moved.has(t));
        turns.length = 0;
        turns.push(...retries);
      }
    }
    // Identical actions are the repeat rule's; a near-duplicate loop has at least one variation.
    if (turns.length < this.threshold || turns.every((t) => t.actionKey === turn.actionKey)) return null;
    return {
      loopType: this.loopType,
      repeats: turns.length,
      since: turns[0]?.step ?? turn.step,
      evidence: turns.map((t) => t.evidence),
      summary: `${turns.length} nearly identical actions gave the same result`,
    };
  }
}
