import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import { commandTextOf } from '../actions/actionKind.js';
import { keyHash } from '../keys/keyHash.js';
import type { SnapshotJson } from '../options/stepSnapshot.js';
import { parseSnapshotPart } from '../options/stepSnapshot.js';
import { editorParts, NEW_FIELDS, OLD_FIELDS, textOf } from './printRewrite.js';

/** Reads and changes remembered, each: the oldest is forgotten beyond this (and read as acted on). */
export const MAX_ACTED = 8;
/** Characters of a read's text read for its names (as many as a read's result is computed from). */
const SHOWN_TEXT = 6001;
/** Characters of a probe's output read from each of its ends when it is longer than {@link SHOWN_TEXT}. */
const SHOWN_HALF = 3000;
/** Names a change may touch and still be told apart: a change that touches more acts on anything. */
export const MAX_WRITTEN_NAMES = 128;
/** Characters of a change read for its names; a longer change acts on anything. */
const WRITTEN_TEXT = 4000;
/** Identifier-like names (three characters or more, starting with a letter or `_`), as `typedWords` reads them. */
const NAME = /[A-Za-z_]\w{2,}/g;

/** What a change writes: its names' hashes, or `undefined` when it may act on anything. */
export type WrittenNames = () => readonly number[] | undefined;

/** A change that acts on nothing read (it prepares a probe). */
export const NO_NAMES: WrittenNames = () => NO_HASHES;
const NO_HASHES: readonly number[] = Object.freeze([]);

/** A change that may act on anything read (it names no file, it changes the agent's own script). */
export const ANY_NAMES: WrittenNames = () => undefined;

/**
 * The names a change touches, as hashes: an editor's names that its new text writes and its old did
 * not hold, or that its old held and its new takes out (edit by edit); a shell line's every name.
 * `undefined` when they cannot be told (no text, more than {@link MAX_WRITTEN_NAMES}, a text longer
 * than 4,000 characters): it may act on anything.
 *
 * @example writtenNames({ old_str: 'x = a', new_str: 'x = get_keep_attrs()' }); // [keyHash('get_keep_attrs'), ...]
 */
export function writtenNames(input: unknown): number[] | undefined {
  const parts = editorParts(input);
  const added = new Set<string>();
  if (parts === undefined) {
    const command = commandTextOf(input);
    if (command === '' || command.length > WRITTEN_TEXT) return undefined;
    for (const name of command.match(NAME) ?? []) added.add(name);
  } else {
    for (const part of parts) {
      const written = textOf(part, NEW_FIELDS) ?? '';
      const replaced = textOf(part, OLD_FIELDS) ?? '';
      if (written.length > WRITTEN_TEXT) return undefined;
      const before = new Set(replaced.match(NAME) ?? []);
      const after = new Set(written.match(NAME) ?? []);
      for (const name of after) if (!before.has(name)) added.add(name);
      for (const name of before) if (!after.has(name)) added.add(name);
    }
  }
  if (added.size > MAX_WRITTEN_NAMES) return undefined;
  return [...added].map(keyHash);
}

/** {@link writtenNames} of a change's input, read once when first asked. */
export function writtenReader(input: unknown): WrittenNames {
  let names: number[] | undefined | null = null;
  return () => {
    if (names === null) names = writtenNames(input);
    return names;
  };
}

/** The distinct names of a read's (bounded) text, as sorted hashes. */
export function shownNames(text: string): number[] {
  const names = new Set<number>();
  const bounded = text.length > SHOWN_TEXT ? text.slice(0, SHOWN_TEXT) : text;
  for (const name of bounded.match(NAME) ?? []) names.add(keyHash(name));
  return [...names].sort((a, b) => a - b);
}

/** Hashes as compact text (4 bytes each, base64): a read's names in a snapshot. */
export function packHashes(hashes: readonly number[]): string {
  let binary = '';
  for (const hash of hashes)
    binary += String.fromCharCode(hash >>> 24, (hash >>> 16) & 255, (hash >>> 8) & 255, hash & 255);
  return btoa(binary);
}

/** The hashes {@link packHashes} wrote. */
export function unpackHashes(text: string): number[] {
  const binary = atob(text);
  const hashes: number[] = [];
  for (let i = 0; i + 3 < binary.length; i += 4) {
    hashes.push(
      ((binary.charCodeAt(i) << 24) |
        (binary.charCodeAt(i + 1) << 16) |
        (binary.charCodeAt(i + 2) << 8) |
        binary.charCodeAt(i + 3)) >>>
        0,
    );
  }
  return hashes;
}

/**
 * A read that taught something: its place among the run's learnings, and its text (in this process)
 * or its names' hashes packed (restored), each read into a set only when a round is judged on it.
 */
interface TaughtRead {
  at: number;
  text: string | undefined;
  packed: string | undefined;
  names: ReadonlySet<number> | undefined;
}

/** A change: its number, the learnings before it, and the names it wrote. */
interface Write {
  change: number;
  learned: number;
  names: WrittenNames;
}

/**
 * Whether a round acted on what it read: a change in it wrote a name that a read taught before it
 * (in the same round) showed. A round that changed the code again where it had, with the same
 * result, and acted on none of its reads learned nothing it used: stale (see `ProbeLedger`).
 *
 * Another probe's new result is judged by name as a read is (its output's ends): a round whose
 * only novelty is such a result that its changes did not act on is stale. A learning with no text
 * (an empty output, a listing with none kept) is not judged by name: a round with one acted on it. A change that names no file, or changes the agent's own
 * script, acts on anything read before it (its script may ask about it). Bounded: the newest 8
 * reads and 8 changes; a round reaching past them is read as having acted. A read's names are
 * hashed only when a round is judged on them or the state is written.
 */
export class ActedReads {
  private readonly reads: TaughtRead[] = [];
  private readonly writes: Write[] = [];
  /** The newest learning not judged by name (or forgotten, or from before this state was kept). */
  private unjudged = 0;
  /** The newest change forgotten. */
  private forgottenChange = 0;

  /** A read that taught something, the `at`-th learning of the run, with its bounded text. */
  read(at: number, text: string): void {
    this.reads.push({ at, text, packed: undefined, names: undefined });
    // A forgotten read counts as acted on (as a learning not judged by name).
    if (this.reads.length > MAX_ACTED)
      this.unjudged = Math.max(this.unjudged, (this.reads.shift() as TaughtRead).at);
  }

  /**
   * A probe's new result that taught something, the `at`-th learning of the run, judged by name
   * like a read: its output's first and last halves of the bound (the end of an output is where a
   * run says what it came to; see `boundedKey`). An empty output is not judged by name.
   */
  resulted(at: number, output: string): void {
    if (output === '') this.learnedOther(at);
    else if (output.length <= SHOWN_TEXT) this.read(at, output);
    else this.read(at, output.slice(0, SHOWN_HALF) + output.slice(-SHOWN_HALF));
  }

  /** A learning that is not judged by name, the `at`-th of the run. */
  learnedOther(at: number): void {
    this.unjudged = at;
  }

  /** The `change`-th change of the run, made after `learned` learnings, writing `names`. */
  wrote(change: number, learned: number, names: WrittenNames): void {
    this.writes.push({ change, learned, names });
    if (this.writes.length > MAX_ACTED) this.forgottenChange = (this.writes.shift() as Write).change;
  }

  /**
   * Whether the changes after the `changes`-th acted on a learning after the `learned`-th: a change
   * wrote a name a read before it showed, or a learning is not judged by name.
   */
  acted(learned: number, changes: number): boolean {
    if (this.unjudged > learned || this.forgottenChange > changes) return true;
    for (const read of this.reads) {
      if (read.at <= learned) continue;
      for (const write of this.writes) {
        if (write.change <= changes || write.learned < read.at) continue;
        const names = write.names();
        if (names === undefined) return true;
        const shown = namesOf(read);
        for (const name of names) if (shown.has(name)) return true;
      }
    }
    return false;
  }

  /** The state: the reads' names packed, the changes' names (`null`: anything). */
  snapshot(): SnapshotJson {
    return {
      reads: this.reads.map((read) => [read.at, packedOf(read)]),
      writes: this.writes.map((write) => {
        const names = write.names();
        return [write.change, write.learned, names === undefined ? null : packHashes(names)];
      }),
      unjudged: this.unjudged,
      forgottenChange: this.forgottenChange,
    };
  }

  /**
   * Replaces the state with one {@link snapshot} returned. `undefined` (a snapshot of layout 13,
   * before this state was kept) is migrated: the `learned` learnings so far count as acted on, as the
   * rule before judged them. @throws InvalidInputError naming the field.
   */
  restore(state: unknown, learned: number): void {
    this.reads.length = 0;
    this.writes.length = 0;
    if (state === undefined) {
      this.unjudged = learned;
      this.forgottenChange = 0;
      return;
    }
    const s = parseSnapshotPart(stateSchema, state, 'snapshot.history.probes.acted');
    this.unjudged = s.unjudged;
    this.forgottenChange = s.forgottenChange;
    for (const [at, packed] of s.reads) this.reads.push({ at, text: undefined, packed, names: undefined });
    for (const [change, learnedBefore, packed] of s.writes) {
      const names = packed === null ? undefined : unpackHashes(packed);
      this.writes.push({ change, learned: learnedBefore, names: () => names });
    }
  }
}

/** A read's names as a set, computed once. */
function namesOf(read: TaughtRead): ReadonlySet<number> {
  read.names ??= new Set(read.text === undefined ? unpackHashes(read.packed ?? '') : shownNames(read.text));
  return read.names;
}

/** A read's names packed, computed once. */
function packedOf(read: TaughtRead): string {
  read.packed ??= packHashes(read.text === undefined ? [] : shownNames(read.text));
  return read.packed;
}

// built on first use (see parseSnapshotPart)
const stateSchema = lazySchema(() => {
  const int = z.number().int().nonnegative();
  const packed = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
  return z.object({
    reads: z.array(z.tuple([int, packed])).max(MAX_ACTED),
    writes: z.array(z.tuple([int, int, packed.nullable()])).max(MAX_ACTED),
    unjudged: int,
    forgottenChange: int,
  });
});
