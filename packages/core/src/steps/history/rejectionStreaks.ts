import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { StepEvidence } from '../keys/stepEvidence.js';
import type { SnapshotJson, SnapshotPart } from '../options/stepSnapshot.js';
import { parseSnapshotPart } from '../options/stepSnapshot.js';
import { type FailureCount, FailureCounts, failureCountsSchema } from './failureCounts.js';

/** Tools whose streak is remembered; the oldest is forgotten beyond this. */
const MAX_TOOLS = 16;

/**
 * The same tool rejection after every attempt: for each tool, its attempts to change something
 * (an edit, a create) refused in a row with one error class (the editor's "No replacement was
 * performed, multiple occurrences of old_str … in lines [12, 40]", "File already exists"), however
 * the line numbers in the message change and whatever was read between. An attempt of the tool
 * that goes through, or is refused otherwise, ends its streak. Bounded: 16 tools.
 */
export class RejectionStreaks implements SnapshotPart {
  private readonly streaks = new FailureCounts(MAX_TOOLS);
  /** Whether the latest turn ended a streak: a change went through, or was refused otherwise. */
  broke = false;

  /** Records a turn: `change` whether it tried to change something, `failed` whether it was refused. */
  record(tool: string, change: boolean, failed: boolean, errorClass: number, evidence: StepEvidence): number {
    this.broke = false;
    if (!change) return 0;
    const streak = this.streaks.take(tool);
    if (!failed || (streak !== undefined && streak.errorClass !== errorClass))
      this.broke = streak !== undefined;
    if (!failed) return 0;
    return this.streaks.add(tool, streak, errorClass, evidence);
  }

  /** The streak of `tool` (`undefined`: none). */
  of(tool: string): Readonly<FailureCount> | undefined {
    return this.streaks.of(tool);
  }

  /** The streaks' state: at most 16 tools, three pieces of evidence each. */
  snapshot(): SnapshotJson {
    return { streaks: this.streaks.snapshot() } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(stateSchema, state ?? { streaks: [] }, 'snapshot.history.rejections');
    this.streaks.restore(s.streaks);
    this.broke = false;
  }
}

// built on first use (see parseSnapshotPart)
const stateSchema = lazySchema(() => z.object({ streaks: failureCountsSchema(MAX_TOOLS) }));
