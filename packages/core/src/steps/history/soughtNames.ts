import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import { cleanEvidence, evidenceSchema, type StepEvidence } from '../keys/stepEvidence.js';
import type { SnapshotJson, SnapshotPart } from '../options/stepSnapshot.js';
import { parseSnapshotPart } from '../options/stepSnapshot.js';

/** Searches remembered (a file and the name sought in it); the oldest is forgotten beyond this. */
const MAX_SEARCHES = 16;
/** Evidence kept for each search: its latest misses. */
const MAX_EVIDENCE = 4;
/** A name in backticks (`build_where`, `Query.build_where()`): the last dotted part is what a file shows. */
const NAMED = /`([A-Za-z_][\w.]*)(?:\(\))?`/g;
/** Names shorter than this (`x`, `df`) show in any code by chance. */
const MIN_NAME = 3;

/** A file read for a name it did not show: how often since the last change, and the reads that show it. */
export interface Search {
  /** The file (or files) read, as the action names them. */
  path: string;
  /** The name the agent said it was looking for. */
  name: string;
  /** Reads of `path` after a message naming `name` that did not show it, since the last change. */
  misses: number;
  /** Step of the first miss. */
  since: number;
  /** The latest misses, oldest first. */
  evidence: StepEvidence[];
}

/**
 * Reads that do not show what the agent said it was looking for. A message that names one thing
 * in backticks (`` Let me find the `build_where` method ``) says what the next action looks for;
 * a read of a file whose output does not contain that name is a guess that missed (a line range
 * picked blindly). Reading other ranges is how a file is explored, but the same name sought in the
 * same file and missed again and again is a search by guessing: nothing shown between the guesses
 * steers the next one, and a search by the name itself would find it at once. A read of the file
 * that shows the name ends its count, and a change starts every count again (the search is then
 * for something else). Bounded: 16 searches.
 */
export class SoughtNames implements SnapshotPart {
  private sought = '';
  /** The latest message's text, its name not yet read (see {@link heard}). */
  private heardText: string | undefined;
  private readonly searches = new Map<string, Search>();
  /** The search the latest turn missed again (`undefined`: it missed none). */
  latest: Readonly<Search> | undefined;
  /** Whether the latest turn ended a search that had missed twice or more: it showed the name, or changed something. */
  broke = false;

  /**
   * Records a message: the name it says the next action looks for, when it names exactly one. The
   * name is read from the text when a read follows (or a snapshot is taken): most messages lead to
   * something else, and the next message replaces it.
   */
  heard(text: string): void {
    this.heardText = text;
  }

  /** The name the latest message sought, read from its text on first need. */
  private soughtName(): string {
    if (this.heardText !== undefined) {
      this.sought = nameSought(this.heardText);
      this.heardText = undefined;
    }
    return this.sought;
  }

  /**
   * Records a turn: `read` the files it read (`''`: it read none, or failed), `changed` whether it
   * changed something, `output` what it showed. Returns the search's misses after this turn
   * (0: not a miss).
   */
  record(read: string, changed: boolean, output: string, evidence: StepEvidence): number {
    // Only a read that changes nothing can miss the name: the message is read for it only then.
    const name = read === '' || changed ? '' : this.soughtName();
    this.sought = '';
    this.heardText = undefined;
    this.latest = undefined;
    this.broke = false;
    if (changed) {
      for (const search of this.searches.values()) if (search.misses >= 2) this.broke = true;
      this.searches.clear();
      return 0;
    }
    if (read === '' || name === '') return 0;
    const key = `${read}\u0001${name}`;
    const search = this.searches.get(key);
    if (output.includes(name)) {
      if (search !== undefined) {
        this.broke = search.misses >= 2;
        this.searches.delete(key);
      }
      return 0;
    }
    const next: Search = search ?? { path: read, name, misses: 0, since: evidence.step, evidence: [] };
    next.misses++;
    next.evidence = [...next.evidence, evidence].slice(-MAX_EVIDENCE);
    this.searches.delete(key);
    if (this.searches.size >= MAX_SEARCHES) this.searches.delete(this.searches.keys().next().value as string);
    this.searches.set(key, next);
    this.latest = next;
    return next.misses;
  }

  /** The state: the name heard and at most 16 searches, four pieces of evidence each. */
  snapshot(): SnapshotJson {
    return {
      sought: this.soughtName(),
      searches: [...this.searches.values()].map((s) => ({
        ...s,
        evidence: s.evidence.map((e) => ({ ...e })),
      })),
    } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned (none: empty). @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(
      stateSchema,
      state ?? { sought: '', searches: [] },
      'snapshot.history.searches',
    );
    this.sought = s.sought;
    this.heardText = undefined;
    this.searches.clear();
    for (const search of s.searches)
      this.searches.set(`${search.path}\u0001${search.name}`, {
        ...search,
        evidence: search.evidence.map(cleanEvidence),
      });
    this.latest = undefined;
    this.broke = false;
  }
}

/** The one name `text` names in backquotes (its last dotted part), `''` when it names none or several. */
function nameSought(text: string): string {
  let found = '';
  // An `exec` loop on the one pattern: `matchAll` makes a copy of the pattern per message.
  NAMED.lastIndex = 0;
  for (let match = NAMED.exec(text); match !== null; match = NAMED.exec(text)) {
    const named = match[1] as string;
    const name = named.slice(named.lastIndexOf('.') + 1);
    if (name.length < MIN_NAME || name === found) continue;
    if (found !== '') return '';
    found = name;
  }
  return found;
}

// built on first use (see parseSnapshotPart)
const stateSchema = lazySchema(() =>
  z.object({
    sought: z.string(),
    searches: z
      .array(
        z.object({
          path: z.string(),
          name: z.string(),
          misses: z.number().int().positive(),
          since: z.number().int().nonnegative(),
          evidence: z.array(evidenceSchema()).max(MAX_EVIDENCE),
        }),
      )
      .max(MAX_SEARCHES),
  }),
);
