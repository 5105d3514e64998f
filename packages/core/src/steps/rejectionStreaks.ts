import { z } from 'zod';
import type { StepEvidence } from './stepEvidence.js';
import { cleanEvidence, evidenceSchema } from './stepEvidence.js';
import type { SnapshotJson, SnapshotPart } from './stepSnapshot.js';
import { parseSnapshotPart } from './stepSnapshot.js';

/** Tools whose streak is remembered; the oldest is forgotten beyond this. */
const MAX_TOOLS = 16;

/** One tool's attempts refused in a row with one error. */
interface Streak {
  /** The refusal's error class (its first error line, digits and the attempt's own words masked). */
  errorClass: number;
  /** Attempts refused in a row with that class. */
  count: number;
  /** Evidence of the first and the newest two refusals. */
  evidence: StepEvidence[];
}

/**
 * The same tool rejection after every attempt: for each tool, its attempts to change something
 * (an edit, a create) refused in a row with one error class (the editor's "No replacement was
 * performed, multiple occurrences of old_str … in lines [12, 40]", "File already exists"), however
 * the line numbers in the message change and whatever was read between. An attempt of the tool
 * that goes through, or is refused otherwise, ends its streak. Bounded: 16 tools.
 */
export class RejectionStreaks implements SnapshotPart {
  private readonly streaks = new Map<string, Streak>();
  /** Whether the latest turn ended a streak: a change went through, or was refused otherwise. */
  broke = false;

  /** Records a turn: `change` whether it tried to change something, `failed` whether it was refused. */
  record(tool: string, change: boolean, failed: boolean, errorClass: number, evidence: StepEvidence): number {
    this.broke = false;
    if (!change) return 0;
    const streak = this.streaks.get(tool);
    this.streaks.delete(tool);
    if (!failed || (streak !== undefined && streak.errorClass !== errorClass))
      this.broke = streak !== undefined;
    if (!failed) return 0;
    const next: Streak =
      streak !== undefined && streak.errorClass === errorClass
        ? {
            errorClass,
            count: streak.count + 1,
            evidence: [streak.evidence[0] as StepEvidence, ...streak.evidence.slice(-1), evidence],
          }
        : { errorClass, count: 1, evidence: [evidence] };
    this.streaks.set(tool, next);
    if (this.streaks.size > MAX_TOOLS) this.streaks.delete(this.streaks.keys().next().value as string);
    return next.count;
  }

  /** The streak of `tool` (`undefined`: none). */
  of(tool: string): Readonly<Streak> | undefined {
    return this.streaks.get(tool);
  }

  /** The streaks' state: at most 16 tools, three pieces of evidence each. */
  snapshot(): SnapshotJson {
    return {
      streaks: [...this.streaks].map(([tool, s]) => [
        tool,
        { ...s, evidence: s.evidence.map((e) => ({ ...e })) },
      ]),
    } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(stateSchema, state ?? { streaks: [] }, 'snapshot.history.rejections');
    this.streaks.clear();
    for (const [tool, streak] of s.streaks)
      this.streaks.set(tool, { ...streak, evidence: streak.evidence.map(cleanEvidence) });
    this.broke = false;
  }
}

const stateSchema = z.object({
  streaks: z
    .array(
      z.tuple([
        z.string(),
        z.object({
          errorClass: z.number().int(),
          count: z.number().int().positive(),
          evidence: z.array(evidenceSchema).min(1).max(3),
        }),
      ]),
    )
    .max(MAX_TOOLS),
});
