import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import { cleanEvidence, evidenceSchema, type StepEvidence } from '../keys/stepEvidence.js';
import type { SnapshotJson, SnapshotPart } from '../options/stepSnapshot.js';
import { MAX_EDIT_PRINTS, parseSnapshotPart } from '../options/stepSnapshot.js';
import type { FileSearch } from './fileSearch.js';
import { probeIdentity, samePath } from './probePaths.js';

/** Debug texts remembered; the oldest is forgotten beyond this. */
const MAX_PRINTS = 16;
/** Probes whose misses are counted; the oldest is forgotten beyond this. */
const MAX_PROBES = 16;
/** Evidence kept for each probe: its latest misses. */
const MAX_EVIDENCE = 4;
/** Texts shorter than this (`x: `, `->`) show in any output by chance. */
const MIN_TEXT = 6;
/** Code read for print calls, at most (a whole file written is read from its start). */
const MAX_CODE = 20_000;

/** A call's literal first argument (`("…")`, `(f'…')`, `` (`…`) ``): found first, its callee read after. */
const LITERAL_ARGUMENT = /\(\s*[frbuFRBU]?(["'`])((?:\\.|(?!\1)[^\\\n])*)\1/g;
/**
 * What ends right before such an argument when it is a print or logging call
 * (`print(f"Debug - names: {x}")`, `logger.warning("[autodoc] got %r", arg)`, `console.log('seen', v)`,
 * `System.out.println("here")`): its text up to the first placeholder is what its output shows.
 */
const PRINT_CALLEE =
  /(?:\bprint|console\.(?:log|error|warn)|\b(?:logger|logging|log|LOG|LOGGER)\.\w+|System\.(?:out|err)\.print(?:ln|f)?|\bstd(?:out|err)\.write|\beprintln!|\bprintln!|fmt\.Print(?:ln|f)?)$/;
/** Characters before an argument read for its callee. */
const CALLEE_SPAN = 32;
/** Where a literal's constant text ends: a placeholder (`{x}`, `%r`, `%s`, `${x}`) or an escape. */
const PLACEHOLDER = /\{|%[-#0 +\d.]*[a-zA-Z]|\$\{|\\/;
/** Escaped line breaks and tabs at a literal's start. */
const LEADING_ESCAPES = /^(?:\\[nrt]|\s)+/;
/** A tool's note that it left part of the output out: what was left out may hold anything. */
const CUT_OUTPUT = /\btruncated\b/i;

/** A probe that ran while debug output was typed into the code under test, and did not show it. */
export interface UnseenRun {
  /** The probe's identity (see `probeIdentity`). */
  probe: string;
  /** The probe as shown in messages. */
  label: string;
  /** Runs in a row of the probe that showed none of the debug texts (since one showed). */
  misses: number;
  /** Step of the first of them. */
  since: number;
  /** The latest misses, oldest first. */
  evidence: StepEvidence[];
  /** For a search of a file (see `searchOf`), the pattern its latest miss looked for; absent: a probe's run. */
  pattern?: string;
}

/** A file's searches that found nothing, each after a change to the code under test. */
interface SearchMisses extends UnseenRun {
  pattern: string;
  /** The count of changes to the code under test at the latest miss. */
  changesAt: number;
}

/**
 * The constant texts of the print and logging calls in `code` (the part before the first
 * placeholder, trimmed; at least 6 characters), in order, without repeats.
 *
 * @example printedTexts('print(f"Debug - names: {names}")'); // ['Debug - names:']
 */
export function printedTexts(code: string): string[] {
  const texts: string[] = [];
  // Every callee below holds one of these (`rint`: print, Print): most edits have none, and are not scanned.
  if (!code.includes('rint') && !code.includes('log') && !code.includes('write') && !code.includes('LOG'))
    return texts;
  const read = code.length > MAX_CODE ? code.slice(0, MAX_CODE) : code;
  LITERAL_ARGUMENT.lastIndex = 0;
  for (let match = LITERAL_ARGUMENT.exec(read); match !== null; match = LITERAL_ARGUMENT.exec(read)) {
    if (!PRINT_CALLEE.test(read.slice(Math.max(0, match.index - CALLEE_SPAN), match.index))) continue;
    // Line breaks and tabs before the text (`print(f"\nContext: {x}")`) are layout, not text.
    const literal = (match[2] as string).replace(LEADING_ESCAPES, '');
    const cut = literal.search(PLACEHOLDER);
    const text = (cut === -1 ? literal : literal.slice(0, cut)).trim();
    if (text.length >= MIN_TEXT && !texts.includes(text)) texts.push(text);
  }
  return texts;
}

/** What an edit did to the print calls of the file it edits: the texts it added and those it took out. */
export interface PrintEdit {
  /** Print calls the change adds. */
  added: string[];
  /** Print calls the change takes out. */
  removed: string[];
}

const NO_EDIT: PrintEdit = Object.freeze({ added: [], removed: [] }) as PrintEdit;
/** Input fields holding the text an edit writes (OpenHands' editor, Claude Code's Edit and Write). */
const NEW_FIELDS = ['new_str', 'new_string', 'file_text', 'content', 'contents'];
/** Input fields holding the text an edit replaces. */
const OLD_FIELDS = ['old_str', 'old_string'];

/**
 * An edit's {@link PrintEdit}, read when asked: `removals` false says no print is expected in the
 * edited file, so an edit that adds none is not read further (its old text could only take out
 * prints nobody expects). Each reading is kept (their `added` texts are the same).
 */
export type PrintEditReader = (removals?: boolean) => PrintEdit;

/** A {@link PrintEditReader} over an editor's input (see {@link printEdit}). */
export function printEditReader(input: unknown): PrintEditReader {
  let whole: PrintEdit | undefined;
  let light: PrintEdit | undefined;
  return (removals = true) => {
    if (whole !== undefined) return whole;
    if (!removals) {
      light ??= printEdit(input, false);
      return light;
    }
    whole = printEdit(input);
    return whole;
  };
}

/**
 * The print calls an editor's input adds and takes out: the texts in its new text that its old
 * text did not print, and the reverse (`removals` false: none taken out is read when none is
 * added). Claude Code's `MultiEdit` (`edits: [{old_string, new_string}]`) is read edit by edit. A
 * shell line is not read (`undefined` input fields: none).
 *
 * @example printEdit({ old_str: 'x = 1', new_str: 'x = 1\nprint("Debug - x is set")' }); // { added: ['Debug - x is set'], removed: [] }
 */
export function printEdit(input: unknown, removals = true): PrintEdit {
  if (typeof input !== 'object' || input === null) return NO_EDIT;
  const record = input as Record<string, unknown>;
  const parts = Array.isArray(record.edits) ? record.edits : [record];
  const added: string[] = [];
  const removed: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'object' || part === null) continue;
    const fields = part as Record<string, unknown>;
    const after = printedTexts(textOf(fields, NEW_FIELDS));
    if (after.length === 0 && !removals) continue;
    const before = printedTexts(textOf(fields, OLD_FIELDS));
    for (const text of after) if (!before.includes(text) && added.length < MAX_EDIT_PRINTS) added.push(text);
    for (const text of before)
      if (!after.includes(text) && removed.length < MAX_EDIT_PRINTS) removed.push(text);
  }
  return added.length === 0 && removed.length === 0 ? NO_EDIT : { added, removed };
}

function textOf(fields: Record<string, unknown>, names: readonly string[]): string {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string') return value;
  }
  return '';
}

/**
 * The agent keeps editing code that does not run. An agent that adds a print to the code it is
 * fixing and runs its probe expects to see it; a probe that shows none of the prints still in
 * that code says the edited code did not run (another copy is imported, the path is never
 * reached, a cache answers). A run counts as a miss only when the agent's changes to the code
 * under test since the previous run all went to files whose prints never show: edits there
 * cannot take effect, whatever it writes next.
 *
 * - A change to any other file of the code under test since the previous run (or one whose file
 *   cannot be told, a package installed) may be the fix, or what makes the code run: every count
 *   starts again.
 * - A run after no change to the code under test is not a miss (nothing was tried there); the
 *   count stands.
 * - Only prints still in the code are expected: an edit that takes a print's text out removes it.
 * - Prints in the agent's own scripts are not counted (their output is the script's, not the code's).
 * - Counted per probe (the same command): another command may never run the edited code.
 * - Prints in a file the probe names (the script or test file it runs itself) are not expected:
 *   their absence says the script failed before them.
 * - An output the tool says it cut (`[... Observation truncated ...]`) proves nothing absent: not counted.
 * - A run that shows one of the texts ends its probe's count; a script of the agent's own written
 *   whole (a new experiment, which may reach the code another way) ends every count.
 *
 * The same expectation read from a search: an agent that greps a file its probe writes (a page, an
 * SVG, a log) for what its change should put there (`grep 'annotation_1' example.svg`), and finds
 * nothing after each change to the code under test, is told the same thing by the file (see
 * {@link UnseenPrints.searched}).
 *
 * Bounded: 16 texts, 16 probes, 16 searched files, four pieces of evidence each.
 */
export class UnseenPrints implements SnapshotPart {
  /** The print texts expected, oldest first, each with the path of the file it was typed into. */
  private readonly texts: Array<{ text: string; path: string }> = [];
  private readonly probes = new Map<string, UnseenRun>();
  /** Whether the code under test was changed since the last probe run in a file whose prints are expected. */
  private changedUnseen = false;
  /** Whether it was changed since then anywhere else (or where cannot be told). */
  private changedElsewhere = false;
  /** Searches of a file that found nothing, by file name. */
  private readonly searches = new Map<string, SearchMisses>();
  /** Changes to the code under test so far (bounded by the run's length). */
  private codeChanges = 0;
  /** The probe the latest turn missed again (`undefined`: none). */
  latest: Readonly<UnseenRun> | undefined;
  /** Whether the latest turn showed debug output on a probe that had missed it twice or more. */
  broke = false;

  /**
   * Records an edit of the code under test in `path`: the print texts it added are now expected,
   * those it took out no longer. Call {@link changed} for the path after it.
   */
  edited(edit: PrintEdit, path: string): void {
    for (const text of edit.removed) {
      const at = this.texts.findIndex((p) => p.text === text);
      if (at !== -1) this.texts.splice(at, 1);
    }
    for (const text of edit.added) {
      if (this.texts.some((p) => p.text === text)) continue;
      if (this.texts.length >= MAX_PRINTS) this.texts.shift();
      this.texts.push({ text, path });
    }
  }

  /**
   * Records a change to the code under test in `path` (`undefined`: a change whose file cannot be
   * told), after {@link edited}: whether it went to a file holding expected prints or elsewhere.
   */
  changed(path: string | undefined): void {
    this.codeChanges++;
    if (path !== undefined && this.expectsIn(path)) this.changedUnseen = true;
    else this.changedElsewhere = true;
  }

  /** Whether print texts are expected in the file at `path`. */
  expectsIn(path: string): boolean {
    return this.texts.some((p) => samePath(p.path, path));
  }

  /** Whether a searched file's count stands (a search that finds something would end it). */
  get searching(): boolean {
    return this.searches.size > 0;
  }

  /** Starts a turn: nothing missed or shown yet. */
  nextTurn(): void {
    this.latest = undefined;
    this.broke = false;
  }

  /** Records a new experiment (a script of the agent's own written whole): every probe's count starts again. */
  experiment(): void {
    this.probes.clear();
    this.searches.clear();
  }

  /**
   * Records a search of a file for what the agent expects it to hold (see `searchOf`): `found`,
   * whether it matched. One that found nothing after a change to the code under test since the
   * file's previous miss is a miss (a search with nothing changed since asks nothing new); one that
   * found something ends the file's count.
   */
  searched(search: FileSearch, found: boolean, evidence: StepEvidence): void {
    const run = this.searches.get(search.file);
    if (found) {
      if (run === undefined) return;
      this.broke = run.misses >= 2;
      this.searches.delete(search.file);
      return;
    }
    if (this.codeChanges === (run?.changesAt ?? 0)) return;
    const next: SearchMisses = run ?? {
      probe: `grep ${search.file}`,
      label: `grep … ${search.file}`,
      misses: 0,
      since: evidence.step,
      evidence: [],
      pattern: search.pattern,
      changesAt: 0,
    };
    next.misses++;
    next.pattern = search.pattern;
    next.changesAt = this.codeChanges;
    next.evidence = [...next.evidence, evidence].slice(-MAX_EVIDENCE);
    this.searches.delete(search.file);
    if (this.searches.size >= MAX_PROBES) this.searches.delete(this.searches.keys().next().value as string);
    this.searches.set(search.file, next);
    this.latest = next;
  }

  /**
   * Records a run of `command` (a probe: its runs are counted by `probeIdentity`) and its output;
   * returns the probe's misses after it (0: not a miss, or no debug output expected).
   */
  ran(command: string, label: string, outputOf: () => string, evidence: StepEvidence): number {
    const tried = this.changedUnseen;
    const elsewhere = this.changedElsewhere;
    this.changedUnseen = false;
    this.changedElsewhere = false;
    // A change elsewhere may be the fix, or what makes the code run: every count starts again.
    if (elsewhere) this.probes.clear();
    // Nothing to count and no count to end: the output is not read.
    if (this.texts.length === 0 || (!tried && this.probes.size === 0)) return 0;
    const probe = probeIdentity(command);
    const run = this.probes.get(probe);
    if (!tried && run === undefined) return 0;
    const output = outputOf();
    // A file the probe names is the script it runs itself: its prints not showing says it failed
    // before them, not that the code it imports does not run.
    const names = probe.split(' ');
    const texts = this.texts.filter((p) => !names.includes(fileName(p.path))).map((p) => p.text);
    if (texts.length === 0) return 0;
    if (texts.some((text) => output.includes(text))) {
      if (run !== undefined) {
        this.broke = run.misses >= 2;
        this.probes.delete(probe);
      }
      return 0;
    }
    // Nothing tried in the code that does not run since the last run (or tried elsewhere too): not a miss.
    if (!tried || elsewhere || CUT_OUTPUT.test(output)) return 0;
    const next: UnseenRun = run ?? { probe, label, misses: 0, since: evidence.step, evidence: [] };
    next.misses++;
    next.evidence = [...next.evidence, evidence].slice(-MAX_EVIDENCE);
    this.probes.delete(probe);
    if (this.probes.size >= MAX_PROBES) this.probes.delete(this.probes.keys().next().value as string);
    this.probes.set(probe, next);
    this.latest = next;
    return next.misses;
  }

  /** The texts expected now, oldest first. */
  expected(): string[] {
    return this.texts.map((p) => p.text);
  }

  /** The state: at most 16 texts and 16 probes, four pieces of evidence each. */
  snapshot(): SnapshotJson {
    return {
      texts: this.texts.map((p) => ({ ...p })),
      changedUnseen: this.changedUnseen,
      changedElsewhere: this.changedElsewhere,
      probes: [...this.probes.values()].map((p) => ({ ...p, evidence: p.evidence.map((e) => ({ ...e })) })),
      searches: [...this.searches.values()].map((p) => ({
        ...p,
        evidence: p.evidence.map((e) => ({ ...e })),
      })),
      codeChanges: this.codeChanges,
    } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned (none: empty). @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(
      stateSchema,
      state ?? { texts: [], probes: [] },
      'snapshot.history.unseenPrints',
    );
    this.texts.splice(0, this.texts.length, ...s.texts.map((p) => ({ ...p })));
    this.probes.clear();
    for (const probe of s.probes)
      this.probes.set(probe.probe, { ...probe, evidence: probe.evidence.map(cleanEvidence) });
    this.searches.clear();
    for (const search of s.searches)
      this.searches.set(search.probe.slice('grep '.length), {
        ...search,
        evidence: search.evidence.map(cleanEvidence),
      });
    this.codeChanges = s.codeChanges;
    this.changedUnseen = s.changedUnseen;
    this.changedElsewhere = s.changedElsewhere;
    this.latest = undefined;
    this.broke = false;
  }
}

/** The file name a path ends with. */
function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

// built on first use (see parseSnapshotPart)
const missesSchema = lazySchema(() =>
  z.object({
    probe: z.string(),
    label: z.string(),
    misses: z.number().int().positive(),
    since: z.number().int().nonnegative(),
    evidence: z.array(evidenceSchema()).max(MAX_EVIDENCE),
  }),
);

const stateSchema = lazySchema(() =>
  z.object({
    texts: z.array(z.object({ text: z.string(), path: z.string() })).max(MAX_PRINTS),
    changedUnseen: z.boolean().default(false),
    changedElsewhere: z.boolean().default(false),
    probes: z.array(missesSchema()).max(MAX_PROBES),
    searches: z
      .array(
        missesSchema().extend({
          probe: z.string().startsWith('grep '),
          pattern: z.string(),
          changesAt: z.number().int().nonnegative(),
        }),
      )
      .max(MAX_PROBES)
      .default([]),
    codeChanges: z.number().int().nonnegative().default(0),
  }),
);
