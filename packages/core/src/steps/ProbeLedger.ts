import { z } from 'zod';
import type { ActionKindName } from './actionKind.js';
import { cleanEvidence, evidenceSchema, type StepEvidence } from './stepEvidence.js';
import { compactKey } from './stepKeys.js';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from './stepSnapshot.js';

/** What a turn did to the work and what its probe showed: see `actionKind.ts`. */
export interface ProbeRun {
  /** The probe's identity (`''`: the turn ran no probe). */
  probe: string;
  /** The probe as shown in messages (shortened). */
  label: string;
  /** What the action does: a change (whether or not it succeeded), a probe run, a read. */
  kind: ActionKindName;
  /** Whether the turn changed files or the environment (a change that did not fail). */
  change: boolean;
  /** Files the action names: what a change writes, what a read reads. */
  paths: string[];
  /** Whether the change wrote whole files (the agent's own scripts are made so). */
  fullWrite: boolean;
  /** The probe's normalised result: an ordered hash of its output's line fingerprints and its failure flag. */
  result: number;
  /** Source paths the probe's output names (a traceback's frames), at most {@link MAX_PATHS}: read only for a repeated result. */
  outputPaths: () => string[];
}

/** One probe's latest result and how long it has stayed the same. */
export interface ProbeRecord {
  /** The probe as shown in messages (shortened). */
  label: string;
  /** The latest result. */
  result: number;
  /** Runs in a row with that result (1: it just appeared). */
  streak: number;
  /** Step of the first run with that result. */
  since: number;
  /** Changes made in the run before the streak began. */
  changesAtStart: number;
  /** Changes made in the run before the latest run. */
  changesAtLast: number;
  /** Rounds in a row, ending with the latest run, with a change and nothing learned between two runs with this result. */
  staleRounds: number;
  /** {@link ProbeLedger.learned} at the latest run. */
  learnedAtLast: number;
  /** {@link ProbeLedger.novel} at the latest run. */
  novelAtLast: number;
  /** Evidence of the streak's runs: the first and the newest two. */
  runs: StepEvidence[];
  /** Source paths the latest repeated result names (read only once the result repeats). */
  outputPaths: string[];
}

/** What the latest turn did to the ledger. */
export interface ProbeUpdate {
  /** The probe the turn ran (`undefined`: none). */
  record: ProbeRecord | undefined;
  /** Changes between this run of the probe and its previous one. */
  changesSincePrevious: number;
  /** The probe's result differs from its previous run: the work moved. */
  changed: boolean;
  /** The turn taught something: a new or changed result, or a read that showed something new. */
  learned: boolean;
  /** This run closed a stale round: a change since the previous run with the same result, and nothing learned. */
  staleRound: boolean;
}

/** Probes remembered; the oldest is forgotten beyond this. */
const MAX_PROBES = 64;
/** Changes remembered for evidence and diagnosis. */
const MAX_CHANGES = 8;
/** Paths kept per probe result or change. */
export const MAX_PATHS = 8;
/** Edited files remembered, to tell a read of the agent's own edits from one that shows something new. */
const MAX_EDITED = 32;

const NO_UPDATE: ProbeUpdate = Object.freeze({
  record: undefined,
  changesSincePrevious: 0,
  changed: false,
  learned: false,
  staleRound: false,
});

/**
 * The probes of a run and the changes made between their runs: the ledger outcome stagnation is
 * judged on. A probe is a command the agent runs again to see whether its change worked; its
 * result is compared with its previous run's, whatever the turns between showed. Bounded: 64
 * probes and the newest 8 changes.
 */
export class ProbeLedger implements SnapshotPart {
  private readonly probes = new Map<string, ProbeRecord>();
  /** Changes made in the run. */
  changes = 0;
  /** Turns that taught something (see {@link ProbeUpdate.learned}). */
  learned = 0;
  /** Changes to a file not changed before in the run: a new place, a new hypothesis. */
  novel = 0;
  /** Files changed in the run, newest last (at most 32). */
  readonly edited: string[] = [];
  /** Files the agent made itself (first written whole: a reproduce script, a test config), newest last (at most 32). */
  readonly own: string[] = [];
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
      if (learned) this.learned++;
      this.latest = learned ? { ...NO_UPDATE, learned: true } : NO_UPDATE;
    }
    if (run === undefined) return this.latest;
    if (run.change) {
      this.changes++;
      this.recentChanges.push({ step, paths: run.paths.slice(0, MAX_PATHS), evidence });
      if (this.recentChanges.length > MAX_CHANGES) this.recentChanges.shift();
      // A new place, or the agent's own harness (a new question), is a new hypothesis.
      if (run.paths.some((path) => this.isOwn(path) || !this.edited.some((e) => samePath(e, path))))
        this.novel++;
      for (const path of run.paths) {
        if (run.fullWrite && !this.edited.some((e) => samePath(e, path)) && !this.isOwn(path)) {
          this.own.push(path);
          if (this.own.length > MAX_EDITED) this.own.shift();
        }
        this.forgetProbesOf(path);
        const at = this.edited.indexOf(path);
        if (at !== -1) this.edited.splice(at, 1);
        this.edited.push(path);
        if (this.edited.length > MAX_EDITED) this.edited.shift();
      }
    }
    if (run.probe === '') return this.latest;
    const key = compactKey(run.probe);
    const previous = this.probes.get(key);
    const shown = { ...evidence };
    if (previous !== undefined && previous.result === run.result) {
      const changesSincePrevious = this.changes - previous.changesAtLast;
      // A stale round: the code changed, in places already changed, and nothing was learned between.
      const staleRound =
        changesSincePrevious > 0 &&
        this.learned === previous.learnedAtLast &&
        this.novel === previous.novelAtLast;
      previous.streak++;
      previous.staleRounds = staleRound ? previous.staleRounds + 1 : 0;
      previous.changesAtLast = this.changes;
      previous.learnedAtLast = this.learned;
      previous.novelAtLast = this.novel;
      previous.runs = [previous.runs[0] as StepEvidence, ...previous.runs.slice(-1), shown];
      previous.outputPaths = run.outputPaths();
      this.touch(key, previous);
      this.latest = { record: previous, changesSincePrevious, changed: false, learned: false, staleRound };
      return this.latest;
    }
    // A new probe, or a result that moved: either teaches something.
    this.learned++;
    const record: ProbeRecord = {
      label: run.label,
      result: run.result,
      streak: 1,
      since: step,
      changesAtStart: this.changes,
      changesAtLast: this.changes,
      staleRounds: 0,
      learnedAtLast: this.learned,
      novelAtLast: this.novel,
      runs: [shown],
      outputPaths: [],
    };
    this.touch(key, record);
    this.latest = {
      record,
      changesSincePrevious: 0,
      changed: previous !== undefined,
      learned: true,
      staleRound: false,
    };
    return this.latest;
  }

  /**
   * Whether a turn without a probe run can teach something about the problem: an edit's reply (even
   * a failed one) tells about the edit; a read of files the agent edited shows its own edits.
   */
  private teaches(run: ProbeRun): boolean {
    if (run.kind === 'change') return false;
    return run.paths.length === 0 || !run.paths.every((path) => this.edited.some((e) => samePath(e, path)));
  }

  private isOwn(path: string): boolean {
    return this.own.some((o) => samePath(o, path));
  }

  /**
   * A change to a file a probe names (its script, its test file) makes the probe a new question:
   * its next result is compared with nothing.
   */
  private forgetProbesOf(path: string): void {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (name === '') return;
    for (const key of [...this.probes.keys()]) {
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
      edited: [...this.edited],
      own: [...this.own],
      recentChanges: this.recentChanges.map((c) => ({
        ...c,
        paths: [...c.paths],
        evidence: { ...c.evidence },
      })),
      probes: [...this.probes].map(([key, r]) => [
        key,
        { ...r, runs: r.runs.map((e) => ({ ...e })), outputPaths: [...r.outputPaths] },
      ]),
    } as unknown as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(ledgerStateSchema, state, 'snapshot.history.probes');
    this.changes = s.changes;
    this.learned = s.learned;
    this.novel = s.novel;
    this.edited.splice(0, this.edited.length, ...s.edited);
    this.own.splice(0, this.own.length, ...s.own);
    this.recentChanges.splice(
      0,
      this.recentChanges.length,
      ...s.recentChanges.map((c) => ({ ...c, evidence: cleanEvidence(c.evidence) })),
    );
    this.probes.clear();
    for (const [key, r] of s.probes) this.probes.set(key, { ...r, runs: r.runs.map(cleanEvidence) });
    this.latest = NO_UPDATE;
  }
}

const int = z.number().int();
const ledgerStateSchema = z.object({
  changes: int.nonnegative(),
  learned: int.nonnegative(),
  novel: int.nonnegative(),
  edited: z.array(z.string()).max(MAX_EDITED),
  own: z.array(z.string()).max(MAX_EDITED),
  recentChanges: z
    .array(z.object({ step: int, paths: z.array(z.string()).max(MAX_PATHS), evidence: evidenceSchema }))
    .max(MAX_CHANGES),
  probes: z
    .array(
      z.tuple([
        z.string(),
        z.object({
          label: z.string(),
          result: int.nonnegative(),
          streak: int.positive(),
          since: int,
          changesAtStart: int.nonnegative(),
          changesAtLast: int.nonnegative(),
          staleRounds: int.nonnegative(),
          learnedAtLast: int.nonnegative(),
          novelAtLast: int.nonnegative(),
          runs: z.array(evidenceSchema).min(1).max(3),
          outputPaths: z.array(z.string()).max(MAX_PATHS),
        }),
      ]),
    )
    .max(MAX_PROBES),
});

/** Whether two paths name the same file: equal, or one ends with the other (a relative and an absolute path). */
function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  const tail = short.replace(/^\.\//, '');
  return long.endsWith(`/${tail}`);
}
