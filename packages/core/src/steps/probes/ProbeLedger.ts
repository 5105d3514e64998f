import { keyHash } from '../keys/keyHash.js';
import { cleanEvidence, type StepEvidence } from '../keys/stepEvidence.js';
import type { SnapshotJson, SnapshotPart } from '../options/stepSnapshot.js';
import { parseSnapshotPart } from '../options/stepSnapshot.js';
import { ActedReads, ANY_NAMES, NO_NAMES, type WrittenNames } from './actedReads.js';
import { asksAnew } from './newQuestion.js';
import { rewritesOwnPrints } from './printRewrite.js';
import { holdsWhole, lineHashes, sameMasked, typedSince } from './probeKey.js';
import { probeIdentity, samePath } from './probePaths.js';
import {
  boundedKey,
  ledgerStateSchema,
  linesOf,
  MAX_AGENT_PRINTS,
  MAX_CHANGES,
  MAX_EDITED,
  MAX_PATHS,
  MAX_PROBES,
  MAX_RUN_RESULTS,
  NO_UPDATE,
  type ProbeRecord,
  type ProbeRun,
  type ProbeUpdate,
  recordSnapshot,
  rememberKey,
  rememberResult,
  restoredRecord,
} from './probeRecord.js';
import { verdictRound } from './probeVerdict.js';
import { ReadRechecks } from './readRechecks.js';

export { MAX_PATHS, type ProbeRecord, type ProbeRun, type ProbeUpdate } from './probeRecord.js';

/**
 * The probes of a run and the changes made between their runs: the ledger outcome stagnation is
 * judged on. A probe is a command the agent runs again to see whether its change worked; its
 * result is compared with its previous run's, whatever the turns between showed.
 *
 * - **The same result** is the same key (see `probeResult`), or the same key once the words the
 *   agent typed into its own scripts since the previous run are masked (its debug labels, renamed
 *   variables), or a result this probe gave before, noise masked, since the agent last changed its
 *   own scripts (A → B → A: a result that comes back is not news, also after a nudge).
 * - **A new question is not news**: a result that moved when the agent had changed its own scripts
 *   since the probe's previous run, or on a probe's first run (see `asksAnew`), answers another
 *   question than the one the loop kept asking; it is counted apart (`questions`).
 * - **The agent's own scripts** (files it first wrote whole: a reproduce script, a test harness)
 *   are not the code under test: changing them is a change, never a new hypothesis, and does not
 *   make their probe a new question.
 *
 * Bounded: 64 probes (8 earlier results each), the newest 8 changes, 32 edited and 32 own files,
 * 256 results of the run.
 */
export class ProbeLedger implements SnapshotPart {
  private readonly probes = new Map<string, ProbeRecord>();
  /** Results shown in the run by any probe (bounded): a result among them is not news. */
  private readonly results = new Set<number>();
  /** The reads of the run, to tell when one run again shows something else (bounded). */
  private readonly rechecks = new ReadRechecks();
  /** The reads that taught and the changes after them: whether a round acted on what it read. */
  private readonly acted = new ActedReads();
  /** A memo of the identities of recent probes (a cache: the same answers without it). */
  private readonly identities = new Map<string, string>();
  /** Changes made in the run. */
  changes = 0;
  /** Turns that taught something (see {@link ProbeUpdate.learned}). */
  learned = 0;
  /** Changes to a file of the code under test not changed before in the run: a new place, a new hypothesis. */
  novel = 0;
  /** Probe runs whose result moved (see {@link ProbeUpdate.news}). */
  news = 0;
  /** Probe runs whose result moved on a new question (see `asksAnew`): not news. */
  questions = 0;
  /**
   * Changes to the code under test by turns that run no probe. A line that changes and runs a
   * probe (`rm -rf _build && sphinx-build …`) prepares the probe, the same way each run: not a try.
   */
  testedChanges = 0;
  /**
   * The number of the newest change that was an attempt: any change but a rewrite of the agent's
   * own debug prints (see `rewritesOwnPrints`).
   */
  lastAttempt = 0;
  /** The texts of the print calls the agent typed in the run, newest last (at most 16). */
  readonly agentPrints: string[] = [];
  /** Files changed in the run, newest last (at most 32). */
  readonly edited: string[] = [];
  /** Files the agent made itself (first written whole: a reproduce script, a test config), newest last (at most 32). */
  readonly own: string[] = [];
  /** The files of the code under test (not the agent's own) the latest change wrote: read right after it is recorded. */
  changedCode: readonly string[] = NO_FILES;
  /**
   * The words typed by the newest changes to the agent's own files, with the change's number; a
   * change's words are read only when a probe's result is compared with them (`saysSame`).
   */
  readonly ownTyped: Array<{ change: number; words: () => string[] }> = [];
  /** The words typed by the newest changes to the code under test (its debug prints), with the change's number. */
  readonly testedTyped: Array<{ change: number; words: () => string[] }> = [];
  /** The newest changes, oldest first. */
  readonly recentChanges: Array<{ step: number; paths: string[]; evidence: StepEvidence }> = [];
  /** What the latest turn did (not state: set again by every turn). */
  latest: ProbeUpdate = NO_UPDATE;

  /**
   * Records a turn: its change, its probe run, and whether it taught something. An edit's own reply
   * (the snippet of the edited file) is the agent's change echoed back, not something learned.
   * Returns (and keeps as {@link latest}) what the turn did.
   */
  record(step: number, run: ProbeRun | undefined, informative: boolean, evidence: StepEvidence): ProbeUpdate {
    if (run === undefined || run.probe === '') {
      const learned = informative && run !== undefined && this.teaches(run);
      if (learned) {
        this.learned++;
        // What the read showed: its text, or its error (a refused view names what it refused).
        const shown = run.readText === '' ? run.output() : run.readText;
        if (shown === '') this.acted.learnedOther(this.learned);
        else this.acted.read(this.learned, shown);
      }
      const news = run !== undefined && this.reread(run);
      this.latest = learned || news ? { ...NO_UPDATE, learned, news } : NO_UPDATE;
    }
    if (run === undefined) return this.latest;
    if (run.change) this.recordChange(step, run, evidence);
    if (run.probe === '') return this.latest;
    return this.recordRun(step, run, evidence);
  }

  private recordChange(step: number, run: ProbeRun, evidence: StepEvidence): void {
    this.changes++;
    const ownChange =
      run.paths.length > 0 && run.paths.every((path) => this.isOwn(path) || this.makesOwn(run, path));
    const work = run.printWork;
    // What the change rewrites is read only once the agent has typed prints of its own.
    if (
      work === undefined ||
      this.agentPrints.length === 0 ||
      !rewritesOwnPrints(work.rewritten(), this.agentPrints)
    )
      this.lastAttempt = this.changes;
    // Only prints typed into the code under test (the agent's own scripts are its own already).
    for (const text of ownChange ? NO_TEXTS : (work?.typed() ?? NO_TEXTS)) {
      if (this.agentPrints.includes(text)) continue;
      this.agentPrints.push(text);
      if (this.agentPrints.length > MAX_AGENT_PRINTS) this.agentPrints.shift();
    }
    this.acted.wrote(this.changes, this.learned, this.namesWritten(run, ownChange));
    this.recentChanges.push({ step, paths: run.paths.slice(0, MAX_PATHS), evidence });
    if (this.recentChanges.length > MAX_CHANGES) this.recentChanges.shift();
    // A change to the code under test at a place not changed before is a new hypothesis; so is a
    // whole rewrite of the agent's own script (a new experiment). Touching it up is neither.
    if (ownChange ? run.fullWrite : run.paths.some((path) => !this.edited.some((e) => samePath(e, path))))
      this.novel++;
    if (!ownChange && run.probe === '') this.testedChanges++;
    // Read only when a probe's result differs from its previous run's (own changes), or when its key
    // lines repeat (whether its debug output appeared: changes to the code under test).
    if (ownChange) this.ownTyped.push({ change: this.changes, words: run.typed });
    else this.testedTyped.push({ change: this.changes, words: run.typed });
    if (this.ownTyped.length > MAX_CHANGES) this.ownTyped.shift();
    if (this.testedTyped.length > MAX_CHANGES) this.testedTyped.shift();
    let code: string[] | undefined;
    for (const path of run.paths) {
      if (this.makesOwn(run, path)) {
        this.own.push(path);
        if (this.own.length > MAX_EDITED) this.own.shift();
      } else if (!this.isOwn(path)) {
        this.forgetProbesOf(path);
        code ??= [];
        code.push(path);
      }
      const at = this.edited.indexOf(path);
      if (at !== -1) this.edited.splice(at, 1);
      this.edited.push(path);
      if (this.edited.length > MAX_EDITED) this.edited.shift();
    }
    this.changedCode = code ?? NO_FILES;
  }

  private recordRun(step: number, run: ProbeRun, evidence: StepEvidence): ProbeUpdate {
    let key = this.identities.get(run.probe);
    if (key === undefined) {
      key = probeIdentity(run.probe);
      if (this.identities.size >= MAX_PROBES) this.identities.clear();
      this.identities.set(run.probe, key);
    }
    const previous = this.probes.get(key);
    // Changes since the previous run that were all rewrites of the agent's own debug prints: it
    // changed what it asks, not the code it fixes; such a round leaves the round counts where they were.
    const printsOnly = previous !== undefined && this.lastAttempt <= previous.changesAtLast;
    const changesSincePrevious =
      previous === undefined || printsOnly ? 0 : this.changes - previous.changesAtLast;
    // The key lines alone (the final error, the failing tests): the same after a change, whatever
    // else the output printed, is a round of the verdict ceiling.
    const { verdict, verdictRounds, verdictNews, words, shown } = verdictRound(
      previous,
      run,
      changesSincePrevious,
      () => typedSince(this.testedTyped, previous?.changesAtLast ?? 0),
    );
    // The debug output the agent added to the code under test appearing is news, whatever the error.
    const same =
      previous !== undefined && !shown && (this.saysSame(previous, run) || this.asksMore(previous, run));
    // A result this probe gave before, whatever its noise, since the agent last changed its own
    // scripts (a script that asks more gets a new answer to a new question, even one it gave before).
    const comesBack = previous !== undefined && !shown && !same && this.comesBack(previous, run);
    // A result that says something else than this probe's previous run and than its earlier runs
    // (a random id, the agent's own words, the loop swinging back do not), or for a probe run for
    // the first time, a result no probe showed in the run.
    const moved = previous === undefined ? !this.results.has(run.result) : !same && !comesBack;
    // News, unless it moved because the question did (the agent's own scripts changed since the
    // previous run, or a first run): a new question does not tell whether the code's changes worked.
    const lastOwnChange = this.ownTyped.at(-1)?.change ?? 0;
    const asked =
      moved && asksAnew(previous === undefined, lastOwnChange, previous?.changesAtLast ?? this.changes);
    const news = moved && !asked;
    if (news) this.news++;
    if (asked) this.questions++;
    // The code under test changed since the previous run (the agent's own scripts alone do not count).
    const tried = previous !== undefined && this.testedChanges > previous.testedAtLast;
    if (!this.results.has(run.result)) {
      if (this.results.size >= MAX_RUN_RESULTS) this.results.clear();
      this.results.add(run.result);
    }
    const runEvidence = { ...evidence };
    // An earlier result counts only as `comesBack` judges it: an identical result given before the
    // agent last changed its own scripts answers a new question, as one with other noise does.
    if (previous !== undefined && !shown && (same || comesBack)) {
      const unlearned = changesSincePrevious > 0 && this.learned === previous.learnedAtLast;
      // A stale round: the code changed, in places already changed, and nothing was learned between,
      // or what was read between was not acted on (no change wrote a name a read before it showed).
      const staleRound =
        changesSincePrevious > 0 &&
        this.novel === previous.novelAtLast &&
        (unlearned || !this.acted.acted(previous.learnedAtLast, previous.changesAtLast));
      // A guess: the code under test changed, wherever, and nothing was learned since the same result.
      const guessRound = unlearned && tried;
      const blindRound = changesSincePrevious > 0;
      // A result that came back (A → B → A) is not news, but the round that brought it back undid
      // something: it keeps the round counts where they were.
      const returned = comesBack || (previous.result !== run.result && previous.seen.includes(run.result));
      previous.returns = returned ? previous.returns + 1 : 0;
      // The second return in a row (A, B, A, B) is an alternation: it counts like the same result.
      const back = returned && previous.returns < 2;
      if (previous.result !== run.result) this.remember(previous);
      previous.result = run.result;
      previous.key = run.key;
      previous.lines = linesOf(run);
      previous.length = run.length;
      previous.streak++;
      Object.assign(previous, { verdict, verdictRounds, words });
      if (!back) previous.staleRounds = staleRound ? previous.staleRounds + 1 : 0;
      if (!back) previous.guessRounds = guessRound ? previous.guessRounds + 1 : 0;
      if (blindRound && !back) previous.changedRounds++;
      if (blindRound && !back && this.novel === previous.novelAtLast) previous.blindRounds++;
      previous.changesAtLast = this.changes;
      previous.learnedAtLast = this.learned;
      previous.novelAtLast = this.novel;
      previous.testedAtLast = this.testedChanges;
      previous.runs = [previous.runs[0] as StepEvidence, ...previous.runs.slice(-1), runEvidence];
      previous.outputPaths = run.outputPaths;
      this.touch(key, previous);
      this.latest = {
        record: previous,
        changesSincePrevious,
        learned: false,
        news,
        verdictNews,
        staleRound: staleRound && !back,
        blindRound,
        tried,
        asked,
      };
      return this.latest;
    }
    // A new probe, or a result that moved: either teaches something, judged by name as a read is.
    this.learned++;
    this.acted.resulted(this.learned, run.output());
    const seen = previous === undefined ? [] : previous.seen;
    const seenKeys = previous === undefined ? [] : previous.seenKeys;
    if (previous !== undefined) this.remember(previous);
    const record: ProbeRecord = {
      label: run.label,
      result: run.result,
      key: run.key,
      lines: linesOf(run),
      length: run.length,
      seen,
      seenKeys,
      streak: 1,
      since: step,
      changesAtStart: this.changes,
      changesAtLast: this.changes,
      staleRounds: 0,
      guessRounds: 0,
      blindRounds: 0,
      changedRounds: 0,
      returns: 0,
      verdict,
      verdictRounds,
      words,
      learnedAtLast: this.learned,
      novelAtLast: this.novel,
      testedAtLast: this.testedChanges,
      runs: [runEvidence],
      outputPaths: NO_PATHS,
    };
    this.touch(key, record);
    this.latest = {
      ...NO_UPDATE,
      record,
      changesSincePrevious,
      learned: true,
      news,
      verdictNews,
      tried,
      asked,
    };
    return this.latest;
  }

  /**
   * Whether a run says what the probe's previous run said: the same result, or the same key once
   * noise (random ids, timestamps) and the words typed into the agent's own scripts since the
   * previous run are masked.
   */
  private saysSame(previous: ProbeRecord, run: ProbeRun): boolean {
    if (previous.result === run.result) return true;
    // The words are read only when they can decide: equal keys say the same whatever was typed.
    let typed: Set<string> | undefined;
    // Noise alone barely changes a text's length: a much longer or shorter output says something else.
    if (Math.abs(run.length - previous.length) > NOISE_LENGTH) {
      typed = new Set(typedSince(this.ownTyped, previous.changesAtLast));
      if (typed.size === 0) return false;
    }
    const key = boundedKey(run.key());
    const before = boundedKey(previous.key());
    // Only noise between them (a random id, a timestamp), or only the agent's own words.
    if (key === before) return true;
    typed ??= new Set(typedSince(this.ownTyped, previous.changesAtLast));
    return typed.size > 0 && sameMasked(key, before, typed);
  }

  /**
   * Whether the agent's script asked more since the probe's previous run while the code under test
   * changed, and got the previous answer whole with lines of its own: the changes moved nothing the
   * script asked before, so the round is the old question's (the result says the same). A script
   * changed alone (a harness being built), or an earlier line that moved, stays a new question.
   * Judged on the whole keys, the previous one's lines as the record keeps them (`lines`); on the
   * bounded keys when it keeps none (more lines than it keeps, or a snapshot of layout 14).
   */
  private asksMore(previous: ProbeRecord, run: ProbeRun): boolean {
    if ((this.ownTyped.at(-1)?.change ?? 0) <= previous.changesAtLast) return false;
    if (this.testedChanges <= previous.testedAtLast) return false;
    const before = previous.lines();
    if (before.length > 0) return holdsWhole(before, lineHashes(run.key()));
    return holdsWhole(lineHashes(boundedKey(previous.key())), lineHashes(boundedKey(run.key())));
  }

  /** Keeps a probe's latest result among its earlier ones, as it came and as what it said. */
  private remember(record: ProbeRecord): void {
    rememberResult(record.seen, record.result);
    rememberKey(record.seenKeys, keyHash(boundedKey(record.key())), record.changesAtLast);
  }

  /**
   * Whether a result that differs from the probe's previous run says what an earlier run said
   * (noise masked) with no change to the agent's own scripts since: the loop swinging back.
   */
  private comesBack(previous: ProbeRecord, run: ProbeRun): boolean {
    if (previous.seenKeys.length === 0) return false;
    const hash = keyHash(boundedKey(run.key()));
    const lastOwnChange = this.ownTyped.at(-1)?.change ?? 0;
    return previous.seenKeys.some(([key, at]) => key === hash && at >= lastOwnChange);
  }

  /**
   * Whether a read run again shows something else than its previous run (the rebuilt page grepped
   * again after a change): a look at the changes' result, news like a probe's new result. Reads of
   * files the agent edited show its own edits, not a result.
   */
  private reread(run: ProbeRun): boolean {
    if (run.readKey === '' || !this.teaches(run)) return false;
    if (!this.rechecks.changed(run)) return false;
    this.news++;
    // The probe run last was not where the result shows (a build whose log never changes): its
    // rounds start again.
    const last = [...this.probes.values()].pop();
    if (last !== undefined) {
      last.staleRounds = 0;
      last.guessRounds = 0;
      last.blindRounds = 0;
      last.changedRounds = 0;
    }
    return true;
  }

  /**
   * Whether a turn without a probe run can teach something about the problem: an edit's reply (even
   * a failed one) tells about the edit; a read of files the agent edited shows its own edits.
   */
  private teaches(run: ProbeRun): boolean {
    if (run.kind === 'change') return false;
    return run.paths.length === 0 || !run.paths.every((path) => this.edited.some((e) => samePath(e, path)));
  }

  /**
   * What a change acts on: a change to the agent's own script, or one that names no file, may act on
   * anything read; one that names no file on the probe's own line (`rm -rf _build && sphinx-build`)
   * prepares the probe and acts on nothing; any other, on the names it writes.
   */
  private namesWritten(run: ProbeRun, ownChange: boolean): WrittenNames {
    if (ownChange) return ANY_NAMES;
    if (run.paths.length > 0) return run.written;
    return run.probe === '' ? ANY_NAMES : NO_NAMES;
  }

  private isOwn(path: string): boolean {
    return this.own.some((o) => samePath(o, path));
  }

  /** Whether `run` writes `path` whole for the first time: the agent makes its own file. */
  private makesOwn(run: ProbeRun, path: string): boolean {
    return run.fullWrite && !this.edited.some((e) => samePath(e, path)) && !this.isOwn(path);
  }

  /**
   * A change to a file of the code under test that a probe names (its test file) makes the probe a
   * new question: its next result is compared with nothing.
   */
  private forgetProbesOf(path: string): void {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (name === '') return;
    for (const key of [...this.probes.keys()]) {
      if (!key.includes(name)) continue;
      if (key.split(/[\s'"=]+/).some((word) => word.slice(word.lastIndexOf('/') + 1) === name))
        this.probes.delete(key);
    }
  }

  /** The changes made since step `since` (exclusive), oldest first, at most the 8 remembered. */
  changesSince(since: number): Array<{ step: number; paths: string[]; evidence: StepEvidence }> {
    return this.recentChanges.filter((change) => change.step > since);
  }

  private touch(key: string, record: ProbeRecord): void {
    this.probes.delete(key);
    this.probes.set(key, record);
    if (this.probes.size > MAX_PROBES) this.probes.delete(this.probes.keys().next().value as string);
  }

  /** The ledger's state: at most 64 probes and 8 changes, with shortened evidence. */
  snapshot(): SnapshotJson {
    return {
      changes: this.changes,
      learned: this.learned,
      novel: this.novel,
      news: this.news,
      questions: this.questions,
      testedChanges: this.testedChanges,
      lastAttempt: this.lastAttempt,
      agentPrints: [...this.agentPrints],
      edited: [...this.edited],
      own: [...this.own],
      ownTyped: this.ownTyped.map((c) => ({ change: c.change, words: [...c.words()] })),
      testedTyped: this.testedTyped.map((c) => ({ change: c.change, words: [...c.words()] })),
      results: [...this.results],
      reads: this.rechecks.snapshot(),
      acted: this.acted.snapshot(),
      recentChanges: this.recentChanges.map((c) => ({
        ...c,
        paths: [...c.paths],
        evidence: { ...c.evidence },
      })),
      probes: [...this.probes].map(([key, r]) => [key, recordSnapshot(r)]),
    } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(ledgerStateSchema, state, 'snapshot.history.probes');
    this.changes = s.changes;
    this.learned = s.learned;
    this.novel = s.novel;
    this.news = s.news;
    this.questions = s.questions;
    this.testedChanges = s.testedChanges;
    // A snapshot from the build before has no count: every change it recorded was an attempt.
    this.lastAttempt = s.lastAttempt ?? s.changes;
    this.agentPrints.splice(0, this.agentPrints.length, ...s.agentPrints);
    this.edited.splice(0, this.edited.length, ...s.edited);
    this.own.splice(0, this.own.length, ...s.own);
    this.ownTyped.splice(
      0,
      this.ownTyped.length,
      ...s.ownTyped.map((c) => ({ change: c.change, words: () => c.words })),
    );
    this.testedTyped.splice(
      0,
      this.testedTyped.length,
      ...s.testedTyped.map((c) => ({ change: c.change, words: () => c.words })),
    );
    this.rechecks.restore(s.reads);
    this.acted.restore(s.acted, s.learned);
    this.results.clear();
    for (const result of s.results) this.results.add(result);
    this.recentChanges.splice(
      0,
      this.recentChanges.length,
      ...s.recentChanges.map((c) => ({ ...c, evidence: cleanEvidence(c.evidence) })),
    );
    this.probes.clear();
    for (const [key, r] of s.probes) this.probes.set(key, restoredRecord(r));
    this.latest = NO_UPDATE;
  }
}

/** A new record's source paths: none until its result repeats. */
const NO_PATHS = (): string[] => [];
const NO_FILES: readonly string[] = Object.freeze([]);
const NO_TEXTS: readonly string[] = Object.freeze([]);

/** How much longer or shorter an output may be and still differ from another only in noise. */
const NOISE_LENGTH = 64;
