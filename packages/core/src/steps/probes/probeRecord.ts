import { z } from 'zod';
import { memo } from '../../kernel/memo.js';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { ActionKindName } from '../actions/actionKind.js';
import { cleanEvidence, evidenceSchema, type StepEvidence } from '../keys/stepEvidence.js';
import { packHashes, unpackHashes } from './actedReads.js';
import type { FileSearch } from './fileSearch.js';
import type { PrintWorkReader } from './printRewrite.js';
import { lineHashes, MAX_LINE_HASHES } from './probeKey.js';
import type { PrintEditReader } from './unseenPrints.js';

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
  /** The probe's normalised result (see `probeResult`). */
  result: number;
  /** For a read with a result, its action's identity (`''`: not such a read): the same read run again is a look at the result of the changes. */
  readKey: string;
  /** For such a read, its exact text's hash (computed when asked). */
  readResult: () => number;
  /** For such a read, the part of its output its result is computed from (`fingerprintedText`; `''` otherwise): equal texts, equal {@link readResult}. */
  readText: string;
  /** What the result says, noise masked (see `probeResult`): read only to compare a result that differs. */
  key: () => string;
  /** The hash of the result's key lines alone (`0`: none; see `probeResult`): read only for a result that differs. */
  verdict: () => number;
  /** The distinct words of the output, as hashes (see `outputWords`): read only for a run with key lines. */
  words: () => number[];
  /** The length of the probe's output. */
  length: number;
  /** For a change, the words it typed (see `typedWords`), read only when a probe's result is compared with them (memoised). */
  typed: () => string[];
  /** For a change, the names it writes (see `writtenNames`; `undefined`: it may act on anything), read when a round is judged. */
  written: () => readonly number[] | undefined;
  /** For a change by an editor, the print calls it added and took out (see `printEdit`; absent: none read). */
  prints?: PrintEditReader | undefined;
  /** For a change, what it does to debug prints (see `printWorkOf`; absent: none read). */
  printWork?: PrintWorkReader | undefined;
  /** The search of one file the command line ends with (see `searchOf`; absent: none). */
  search?: (() => FileSearch | undefined) | undefined;
  /** The whole output of a probe run or a failing line (`''`: none, or not kept). */
  output: () => string;
  /** Source paths the probe's output names (a traceback's frames), at most {@link MAX_PATHS}: read only for a repeated result. */
  outputPaths: () => string[];
}

/** One probe's latest result and how long it has stayed the same. */
export interface ProbeRecord {
  /** The probe as shown in messages (shortened). */
  label: string;
  /** The latest result. */
  result: number;
  /** What the latest result says (see {@link ProbeRun.key}), read when needed. */
  key: () => string;
  /** The length of the latest output. */
  length: number;
  /**
   * The distinct lines of the latest result's whole key (see {@link ProbeRun.key}), as `lineHashes`
   * at most {@link MAX_LINE_HASHES} (`[]`: more, or a snapshot of layout 14): what `ProbeLedger.asksMore`
   * compares where the snapshot keeps only the bounded key. Computed on first use.
   */
  lines: () => readonly number[];
  /** Earlier results of this probe, newest last (at most {@link MAX_SEEN_RESULTS}): one that comes back is not news. */
  seen: number[];
  /**
   * What earlier results of this probe said (see {@link rememberKey}): `[hash of the bounded key,
   * changes made before it was shown]`, newest last, at most {@link MAX_SEEN_RESULTS}. A result that
   * comes back with other noise (another address, another temporary name) is still one given before.
   */
  seenKeys: Array<[number, number]>;
  /** Runs in a row with that result, or with one that came back (1: it just appeared). */
  streak: number;
  /** Step of the first run of the streak. */
  since: number;
  /** Changes made in the run before the streak began. */
  changesAtStart: number;
  /** Changes made in the run before the latest run. */
  changesAtLast: number;
  /** Rounds in a row, ending with the latest run, with a change and nothing learned between two runs with this result. */
  staleRounds: number;
  /**
   * Rounds in a row, ending with the latest run, with a change to the code under test (wherever it
   * went) and nothing learned between two runs with this result: guesses, not hypotheses.
   */
  guessRounds: number;
  /** Rounds in a row, ending with the latest run, with a change but no new hypothesis between two runs with this result, whatever was read. */
  blindRounds: number;
  /** Rounds in a row, ending with the latest run, with a change between two runs with this result, whatever was read or tried. */
  changedRounds: number;
  /** Runs in a row, ending with the latest, whose result came back from earlier in the streak (A → B → A). */
  returns: number;
  /** The latest run's key lines alone (their hash, `0`: none), whatever the rest of its output said. */
  verdict: number;
  /** Rounds in a row, ending with the latest run, with a change between two runs with the same key lines (not none), whatever else the output or the turns between showed, unless the debug output the agent added appeared. */
  verdictRounds: number;
  /** The latest output's words (hashes, at most `MAX_OUTPUT_WORDS`), read only to see the debug output appear. */
  words: () => number[];
  /** {@link ProbeLedger.learned} at the latest run. */
  learnedAtLast: number;
  /** {@link ProbeLedger.novel} at the latest run. */
  novelAtLast: number;
  /** {@link ProbeLedger.testedChanges} at the latest run. */
  testedAtLast: number;
  /** Evidence of the streak's runs: the first and the newest two. */
  runs: StepEvidence[];
  /** Source paths the latest repeated result names, read when needed (a diagnosis, a snapshot). */
  outputPaths: () => string[];
}

/** What the latest turn did to the ledger. */
export interface ProbeUpdate {
  /** The probe the turn ran (`undefined`: none). */
  record: ProbeRecord | undefined;
  /** Changes between this run of the probe and its previous one. */
  changesSincePrevious: number;
  /** The turn taught something: a new or changed result, or a read that showed something new. */
  learned: boolean;
  /**
   * The probe's result differs from its previous run and from the results it gave before since the
   * agent last changed its own scripts, and the question did not change (the agent's own scripts
   * unchanged since the previous run; a first run is a new question, see `asksAnew`): the only
   * progress after a nudge.
   */
  news: boolean;
  /** The probe's key lines differ from its previous run's, or it has none (a run's verdict moved): what ends a nudge of the verdict ceiling. */
  verdictNews: boolean;
  /** This run closed a stale round: a change since the previous run with the same result, and nothing learned. */
  staleRound: boolean;
  /** This run closed a round with a change and the same (or a returning) result, whatever was read or tried between. */
  blindRound: boolean;
  /** The code under test changed since the probe's previous run (changes to the agent's own scripts alone do not count). */
  tried: boolean;
  /** The probe's result moved on a new question (see `asksAnew`): not news, but it ends a standing nudge. */
  asked: boolean;
}

/** The update of a turn that ran no probe and taught nothing. */
export const NO_UPDATE: ProbeUpdate = Object.freeze({
  record: undefined,
  changesSincePrevious: 0,
  learned: false,
  news: false,
  verdictNews: false,
  staleRound: false,
  blindRound: false,
  tried: false,
  asked: false,
});

/** Probes remembered; the oldest is forgotten beyond this. */
export const MAX_PROBES = 64;
/** Changes remembered for evidence and diagnosis. */
export const MAX_CHANGES = 8;
/** Paths kept per probe result or change. */
export const MAX_PATHS = 8;
/** Edited files remembered, to tell a read of the agent's own edits from one that shows something new. */
export const MAX_EDITED = 32;
/** Earlier results remembered per probe. */
export const MAX_SEEN_RESULTS = 8;
/** Results remembered for the whole run (any probe), to tell news from a result shown before. */
export const MAX_RUN_RESULTS = 256;
/** Distinct words of an output remembered per probe run (their hashes), to see debug output appear. */
export const MAX_OUTPUT_WORDS = 1024;
/** Characters of a result's key kept and compared (the snapshot's bound): see {@link boundedKey}. */
export const MAX_KEY_CHARS = 2000;

/**
 * A result's key as it is kept and compared: whole up to {@link MAX_KEY_CHARS}, else its first and
 * last halves of that bound. The end of an output is where a run says what it came to (a script's
 * last prints, a runner's summary, the final error), and a key cut to its beginning called two runs
 * the same when only their ends differed: an output flooded with debug lines, whose verdict below
 * them changed, read as noise.
 */
export function boundedKey(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key;
  const half = MAX_KEY_CHARS / 2;
  return key.slice(0, half) + key.slice(-half);
}

/** Print texts the agent typed that are remembered (see `ProbeLedger.agentPrints`). */
export const MAX_AGENT_PRINTS = 16;

/** The ledger's snapshot, validated on restore (built on first use, see parseSnapshotPart). */
export const ledgerStateSchema = lazySchema(() => {
  const int = z.number().int();
  return z.object({
    changes: int.nonnegative(),
    learned: int.nonnegative(),
    novel: int.nonnegative(),
    news: int.nonnegative().default(0),
    questions: int.nonnegative().default(0),
    testedChanges: int.nonnegative().default(0),
    lastAttempt: int.nonnegative().optional(),
    agentPrints: z.array(z.string()).max(MAX_AGENT_PRINTS).default([]),
    edited: z.array(z.string()).max(MAX_EDITED),
    own: z.array(z.string()).max(MAX_EDITED),
    ownTyped: z
      .array(z.object({ change: int.nonnegative(), words: z.array(z.string()) }))
      .max(MAX_CHANGES)
      .default([]),
    testedTyped: z
      .array(z.object({ change: int.nonnegative(), words: z.array(z.string()) }))
      .max(MAX_CHANGES)
      .default([]),
    results: z.array(int).max(MAX_RUN_RESULTS).default([]),
    reads: z.unknown(),
    acted: z.unknown().optional(),
    recentChanges: z
      .array(z.object({ step: int, paths: z.array(z.string()).max(MAX_PATHS), evidence: evidenceSchema() }))
      .max(MAX_CHANGES),
    probes: z
      .array(
        z.tuple([
          z.string(),
          z.object({
            label: z.string(),
            result: int.nonnegative(),
            key: z.string().max(MAX_KEY_CHARS).default(''),
            length: int.nonnegative().default(0),
            lines: z
              .string()
              .max(Math.ceil((MAX_LINE_HASHES * 4) / 3) + 4)
              .optional(),
            seen: z.array(int).max(MAX_SEEN_RESULTS).default([]),
            seenKeys: z
              .array(z.tuple([int.nonnegative(), int.nonnegative()]))
              .max(MAX_SEEN_RESULTS)
              .default([]),
            streak: int.positive(),
            since: int,
            changesAtStart: int.nonnegative(),
            changesAtLast: int.nonnegative(),
            staleRounds: int.nonnegative(),
            guessRounds: int.nonnegative().default(0),
            blindRounds: int.nonnegative().default(0),
            changedRounds: int.nonnegative().default(0),
            returns: int.nonnegative().default(0),
            verdict: int.nonnegative().default(0),
            verdictRounds: int.nonnegative().default(0),
            words: z.array(int.nonnegative()).max(MAX_OUTPUT_WORDS).default([]),
            learnedAtLast: int.nonnegative(),
            novelAtLast: int.nonnegative(),
            testedAtLast: int.nonnegative().default(0),
            runs: z.array(evidenceSchema()).min(1).max(3),
            outputPaths: z.array(z.string()).max(MAX_PATHS),
          }),
        ]),
      )
      .max(MAX_PROBES),
  });
});

/** Adds `result` to a probe's earlier results (newest last, at most {@link MAX_SEEN_RESULTS}). */
export function rememberResult(seen: number[], result: number): void {
  if (seen.includes(result)) return;
  seen.push(result);
  if (seen.length > MAX_SEEN_RESULTS) seen.shift();
}

/**
 * Adds what a result said (`hash`, its bounded key's) to a probe's earlier results, with the changes
 * made before it was last shown (`at`); newest last, at most {@link MAX_SEEN_RESULTS}.
 */
export function rememberKey(seenKeys: Array<[number, number]>, hash: number, at: number): void {
  const found = seenKeys.findIndex(([key]) => key === hash);
  if (found !== -1) seenKeys.splice(found, 1);
  seenKeys.push([hash, at]);
  if (seenKeys.length > MAX_SEEN_RESULTS) seenKeys.shift();
}

/** A record's {@link ProbeRecord.lines} of a run: the `lineHashes` of its whole key, computed on first use. */
export function linesOf(run: Pick<ProbeRun, 'key'>): () => readonly number[] {
  return memo((): readonly number[] => lineHashes(run.key(), MAX_LINE_HASHES));
}

/** A probe record as its snapshot writes it: its key and words read, its evidence copied. */
export function recordSnapshot(r: ProbeRecord): Record<string, unknown> {
  return {
    ...r,
    key: boundedKey(r.key()),
    lines: packHashes(r.lines()),
    seen: [...r.seen],
    seenKeys: r.seenKeys.map(([key, at]) => [key, at]),
    words: [...r.words()],
    runs: r.runs.map((e) => ({ ...e })),
    outputPaths: [...r.outputPaths()],
  };
}

/** A probe record from its validated snapshot. */
export function restoredRecord(
  r: z.infer<ReturnType<typeof ledgerStateSchema>>['probes'][number][1],
): ProbeRecord {
  return {
    ...r,
    key: () => r.key,
    lines: memo((): readonly number[] => (r.lines === undefined ? [] : unpackHashes(r.lines))),
    words: () => r.words,
    outputPaths: () => r.outputPaths,
    seenKeys: r.seenKeys.map(([key, at]) => [key, at]),
    runs: r.runs.map(cleanEvidence),
  };
}
