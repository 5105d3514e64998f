import { keyHash } from '../keys/keyHash.js';
import { cleanEvidence } from '../keys/stepEvidence.js';
import { messageKey } from '../keys/stepKeys.js';
import { MAX_TRACKED_PERIOD } from '../options/stepLoopDetectorOptions.js';
import { parseSnapshotPart, type SnapshotJson, type SnapshotPart } from '../options/stepSnapshot.js';
import { ProbeLedger } from '../probes/ProbeLedger.js';
import { UnseenPrints } from '../probes/unseenPrints.js';
import { BoundedSeen } from './boundedSeen.js';
import { historyStateSchema, pairKeyOf, pairKeyOfText } from './historyState.js';
import { RejectionStreaks } from './rejectionStreaks.js';
import { RetriedCalls } from './retriedCalls.js';
import { SoughtNames } from './soughtNames.js';
import type { MessageTurn, Turn } from './turn.js';

export { keyHash } from '../keys/keyHash.js';
export type { StepEvidence } from '../keys/stepEvidence.js';
export type { MessageTurn, Turn } from './turn.js';

const RECENT_CAPACITY = 64;
/** Messages kept since the last informative turn, for near-duplicate comparison. */
export const RECENT_MESSAGES = 16;
/** Distinct keys counted since the last informative turn before the counts start again. */
const MAX_COUNTED_KEYS = 4096;
/** Line fingerprints remembered per generation (two generations are kept). */
export const SEEN_LINES_GENERATION = 32_768;

/** Characters of an action's or message's text kept in a snapshot: all that sketches read. */
const SNAPSHOT_TEXT = 4000;

function learn(seen: BoundedSeen, values: readonly number[]): number {
  let fresh = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number;
    if (seen.has(value)) continue;
    seen.add(value);
    fresh++;
  }
  return fresh;
}

function bump<K>(map: Map<K, number>, key: K): number {
  if (map.size >= MAX_COUNTED_KEYS && !map.has(key)) map.clear();
  const count = (map.get(key) ?? 0) + 1;
  map.set(key, count);
  return count;
}

/** A failing line's output that says it failed for another reason than finding nothing. */
const FAILED_OTHERWISE = /No such file|Traceback|[Ee]rror|not found|[Pp]ermission denied/;

/**
 * The run as the rules need it, kept incrementally so that every update costs the same whatever
 * the run's length.
 *
 * **Progress is what the agent learns.** A turn is *informative* when its observation shows
 * something not seen before in the run: a line whose fingerprint is new (see `fingerprint.ts`:
 * line numbers, clock times, durations, addresses and echoed command words do not make a line
 * new), unless the output only accumulated (no new line shape, and blocks repeated inside it); a
 * failure of a new class (a new error, a test that fails differently); or, for a new action, a
 * silent success (an effect: one command over many files). Everything else is *stale*: the same
 * result again, a result that only grew by lines already seen, the same "no matches" after a
 * reworded search, the same error after a different command. An informative turn ends every loop
 * in progress: the counts below start again and the ladder goes back to the ground.
 */
export class StepHistory implements SnapshotPart {
  /** Recent turns, oldest first (at most 64). */
  readonly recent: Turn[] = [];
  /** Line fingerprints seen in the run (bounded). */
  readonly seenLines = new BoundedSeen(SEEN_LINES_GENERATION);
  /** Line shapes seen in the run (bounded). */
  readonly seenShapes = new BoundedSeen(SEEN_LINES_GENERATION);
  /** The probes re-run between changes, for outcome stagnation (bounded). */
  readonly probes = new ProbeLedger();
  /** Each tool's change attempts refused in a row with one error (bounded). */
  readonly rejections = new RejectionStreaks();
  /** The same call failing the same way since the last change, whatever was read between. */
  readonly retries = new RetriedCalls();
  /** Reads that did not show the name the agent said it was looking for (see `SoughtNames`). */
  readonly searches = new SoughtNames();
  /** Debug output typed into the code under test and the probe runs that did not show it. */
  readonly unseenPrints = new UnseenPrints();
  /** Error classes seen in the run (bounded). */
  readonly seenErrors = new BoundedSeen(4096);
  /** Action keys seen in the run (bounded). */
  readonly seenActions = new BoundedSeen(SEEN_LINES_GENERATION);
  /** Since the last informative turn (inclusive): occurrences per pair key (see `pairKeyOf`). */
  readonly pairCounts = new Map<number, number>();
  /** Since the last informative turn: failures per error class. */
  readonly errorCounts = new Map<number, number>();
  /** Since the last informative turn: occurrences per outcome. */
  readonly outcomeCounts = new Map<number, number>();
  /** Since the last informative turn: messages per key. */
  readonly messageCounts = new Map<string, number>();
  /** Since the last informative turn: the newest messages (at most {@link RECENT_MESSAGES}). */
  readonly messages: MessageTurn[] = [];
  /**
   * The first message of the monologue, not yet counted in {@link messageCounts}: a message's key is
   * computed when a second message of its monologue comes (or a snapshot is taken). Most messages are
   * followed by a tool call, which ends the monologue, and are never compared with another.
   */
  private uncounted: MessageTurn | undefined;
  /** `periodRuns[p]`: trailing turns equal to the turn `p` before them. */
  readonly periodRuns: number[] = new Array(MAX_TRACKED_PERIOD + 1).fill(0);
  /** Step index of the last informative turn; `-1` before any. */
  lastInformativeStep = -1;
  /** Turns since the last informative turn (inclusive of it). */
  turnsSinceInformative = 0;
  /** Stale turns (not quiet, not a change that went through) since the last informative turn. */
  staleSinceInformative = 0;
  /** Rejected replies in a row (messages between do not break the row), since the last informative turn. */
  rejectedSinceInformative = 0;
  /** Turns recorded. */
  turnCount = 0;
  /**
   * Consecutive turns, ending with the last, with one action and one result (for a failure: one
   * error class). Silent successes never chain (`cd ..` three times goes somewhere), nor do
   * rejected replies (the rejected-turn rule counts those).
   */
  verbatimRun = 0;
  /** Whether the last turn's action was a change (an edit, a write): repeating a change is certain sooner. */
  lastWasChange = false;
  /** Consecutive failures of one action, ending with the last, whatever their error texts. */
  failingRun = 0;
  /**
   * Consecutive turns of one action with no observation (a caller that reports calls, not results),
   * ending with the last: without a result, only the same call again and again shows a loop.
   */
  blindRun = 0;

  /** Records the lines of an observation; returns how many were new. */
  learnLines(lines: readonly number[]): number {
    return learn(this.seenLines, lines);
  }

  /** Records the line shapes of an observation; returns how many were new. */
  learnShapes(shapes: readonly number[]): number {
    return learn(this.seenShapes, shapes);
  }

  /** Records an error class; returns whether it was new. */
  learnError(errorClass: number): boolean {
    if (this.seenErrors.has(errorClass)) return false;
    this.seenErrors.add(errorClass);
    return true;
  }

  /** Records an action key; returns whether it was new. */
  learnAction(actionKey: string): boolean {
    return this.learnActionHash(keyHash(actionKey));
  }

  /** Records an action key by its {@link keyHash}; returns whether it was new. */
  learnActionHash(hash: number): boolean {
    if (this.seenActions.has(hash)) return false;
    this.seenActions.add(hash);
    return true;
  }

  /** Records a turn (its `informative` flag already set). */
  addTurn(turn: Turn): void {
    this.probes.record(turn.step, turn.probeRun, turn.informative, turn.evidence);
    this.recordPrints(turn);
    // Only attempts that change and run nothing: a line that also runs a probe failed as a probe.
    const change = !turn.rejected && turn.probeRun?.kind === 'change' && turn.probeRun.probe === '';
    this.rejections.record(turn.tool, change, turn.error, turn.errorClass, turn.evidence);
    this.retries.record(
      turn.rejected ? '' : turn.actionKey,
      turn.probeRun?.kind === 'change' ? 'change' : 'other',
      turn.probeRun?.change === true,
      turn.error,
      turn.errorClass,
      turn.evidence,
    );
    if (turn.informative) this.startAgain(turn.step);
    else if (!turn.rejected) this.endMonologue();
    this.turnsSinceInformative++;
    if (!turn.informative && !turn.quiet && !turn.applied) this.staleSinceInformative++;
    // Rejections count in a row: a reply the harness accepted shows the agent found the format again.
    this.rejectedSinceInformative = turn.rejected ? this.rejectedSinceInformative + 1 : 0;
    bump(this.pairCounts, turn.pairKey);
    if (turn.error && !turn.rejected) bump(this.errorCounts, turn.errorClass);
    else if (turn.outcomeKey !== 0 && !turn.quiet) bump(this.outcomeCounts, turn.outcomeKey);
    const n = this.recent.length;
    const previous = this.recent[n - 1];
    this.lastWasChange = turn.probeRun?.kind === 'change';
    const sameAction = previous !== undefined && !turn.rejected && previous.actionKey === turn.actionKey;
    const observed = turn.outcomeKey !== 0;
    this.failingRun =
      turn.error && !turn.rejected ? (sameAction && previous.error ? this.failingRun + 1 : 1) : 0;
    this.blindRun =
      !observed && !turn.rejected ? (sameAction && previous.outcomeKey === 0 ? this.blindRun + 1 : 1) : 0;
    this.verbatimRun =
      previous !== undefined &&
      observed &&
      !turn.informative &&
      !turn.quiet &&
      !turn.rejected &&
      previous.actionKey === turn.actionKey &&
      previous.error === turn.error &&
      (turn.error
        ? previous.errorClass === turn.errorClass
        : // The same change applied again whose reply shows nothing new (the file only shrank or grew
          // by what it showed) achieved nothing the first did not.
          previous.outcomeKey === turn.outcomeKey || turn.probeRun?.kind === 'change')
        ? this.verbatimRun + 1
        : 1;
    for (let period = 1; period <= MAX_TRACKED_PERIOD; period++) {
      const earlier = this.recent[n - period];
      // A turn without a result cannot show that a pattern gave the same results: no period. The
      // pair key's parts are compared, the outcome first (a number): the same pair key, without
      // reading the action's text where the outcomes differ.
      this.periodRuns[period] =
        observed &&
        earlier !== undefined &&
        earlier.outcomeKey === turn.outcomeKey &&
        earlier.actionKey === turn.actionKey
          ? (this.periodRuns[period] ?? 0) + 1
          : 0;
    }
    this.recent.push(turn);
    if (this.recent.length > RECENT_CAPACITY) this.recent.splice(0, this.recent.length - RECENT_CAPACITY / 2);
    this.turnCount++;
  }

  private startAgain(step: number): void {
    this.lastInformativeStep = step;
    this.turnsSinceInformative = 0;
    this.staleSinceInformative = 0;
    this.rejectedSinceInformative = 0;
    if (this.pairCounts.size > 0) this.pairCounts.clear();
    if (this.errorCounts.size > 0) this.errorCounts.clear();
    if (this.outcomeCounts.size > 0) this.outcomeCounts.clear();
    if (this.messageCounts.size > 0) this.messageCounts.clear();
    this.messages.length = 0;
    this.uncounted = undefined;
  }

  /**
   * A tool call ends the monologue: the messages between calls are their thoughts, judged with the
   * turns they lead to, and only messages with no call between them repeat as a monologue.
   */
  private endMonologue(): void {
    if (this.messageCounts.size > 0) this.messageCounts.clear();
    this.messages.length = 0;
    this.uncounted = undefined;
  }

  /**
   * The debug output of a turn: a change to the code under test (not the agent's own scripts, as
   * the ledger knows them after this turn) edits the prints expected and says where the agent
   * tried; a probe run shows them or not.
   */
  private recordPrints(turn: Turn): void {
    this.unseenPrints.nextTurn();
    const run = turn.probeRun;
    if (run === undefined) return;
    if (run.change) {
      const code = this.probes.changedCode;
      const prints = run.prints;
      const first = code[0];
      if (first !== undefined && prints !== undefined)
        this.unseenPrints.edited(prints(this.unseenPrints.expectsIn(first)), first);
      for (const path of code) this.unseenPrints.changed(path);
      // A change whose file cannot be told (a package installed, a checkout) may make the code run.
      if (run.paths.length === 0) this.unseenPrints.changed(undefined);
      // A script of its own written whole is a new experiment: it may reach the code another way.
      else if (code.length === 0 && run.fullWrite) this.unseenPrints.experiment();
    }
    if (run.probe !== '') this.unseenPrints.ran(run.probe, run.label, run.output, turn.evidence);
    // A search that found something matters only while a file's count stands.
    const search =
      run.search !== undefined && (turn.error || this.unseenPrints.searching) ? run.search() : undefined;
    // A search that failed otherwise (no such file, the probe before it crashed) tells nothing.
    if (search !== undefined && !(turn.error && FAILED_OTHERWISE.test(run.output())))
      this.unseenPrints.searched(search, !turn.error, turn.evidence);
  }

  /**
   * Records a message. Its key is counted in {@link messageCounts} (in the order the messages came)
   * once a second message of the monologue comes: until then no rule compares it.
   */
  addMessage(message: MessageTurn): void {
    const alone = this.messages.length === 0;
    this.messages.push(message);
    this.searches.heard(message.text);
    if (this.messages.length > RECENT_MESSAGES) this.messages.shift();
    if (alone) {
      this.uncounted = message;
      return;
    }
    this.countUncounted();
    bump(this.messageCounts, this.messageKeyOf(message));
  }

  /** `message`'s key (`messageKey` of its text), computed on first read and kept on it. */
  messageKeyOf(message: MessageTurn): string {
    message.key ??= messageKey(message.text);
    return message.key;
  }

  private countUncounted(): void {
    if (this.uncounted === undefined) return;
    bump(this.messageCounts, this.messageKeyOf(this.uncounted));
    this.uncounted = undefined;
  }

  /** Trailing turns equal to the turn `period` turns before them (0 when the last turn breaks the pattern). */
  periodRun(period: number): number {
    return this.periodRuns[period] ?? 0;
  }

  /** The last `count` turns, oldest first. */
  last(count: number): Turn[] {
    return this.recent.slice(Math.max(0, this.recent.length - count));
  }

  /** The turns since the last informative turn (inclusive), newest last, at most the 64 kept. */
  sinceInformative(): Turn[] {
    return this.last(this.turnsSinceInformative);
  }

  /** The newest turns since the last informative one that match `predicate`, oldest first, at most `count`. */
  lastMatching(predicate: (turn: Turn) => boolean, count: number): Turn[] {
    const found: Turn[] = [];
    const from = Math.max(0, this.recent.length - this.turnsSinceInformative);
    for (let i = this.recent.length - 1; i >= from && found.length < count; i--) {
      const turn = this.recent[i] as Turn;
      if (predicate(turn)) found.push(turn);
    }
    return found.reverse();
  }

  /** The history's state: bounded by its windows and sets, never by the run's length. */
  snapshot(): SnapshotJson {
    this.countUncounted();
    return {
      recent: this.recent.map(
        ({
          sketch: _s,
          targets: _t,
          placedText: _x,
          probeRun: _p,
          calledAgain: _c,
          evidence,
          actionText,
          ...turn
        }) => ({
          ...turn,
          actionText: actionText.slice(0, SNAPSHOT_TEXT),
          evidence: { ...evidence },
        }),
      ),
      probes: this.probes.snapshot(),
      rejections: this.rejections.snapshot(),
      retries: this.retries.snapshot(),
      searches: this.searches.snapshot(),
      unseenPrints: this.unseenPrints.snapshot(),
      seenLines: this.seenLines.snapshot(),
      seenShapes: this.seenShapes.snapshot(),
      seenErrors: this.seenErrors.snapshot(),
      seenActions: this.seenActions.snapshot(),
      pairCounts: [...this.pairCounts],
      errorCounts: [...this.errorCounts],
      outcomeCounts: [...this.outcomeCounts],
      messageCounts: [...this.messageCounts],
      messages: this.messages.map((message) => ({
        step: message.step,
        key: this.messageKeyOf(message),
        text: message.text.slice(0, SNAPSHOT_TEXT),
        evidence: { ...message.evidence },
      })),
      periodRuns: [...this.periodRuns],
      lastInformativeStep: this.lastInformativeStep,
      turnsSinceInformative: this.turnsSinceInformative,
      staleSinceInformative: this.staleSinceInformative,
      rejectedSinceInformative: this.rejectedSinceInformative,
      turnCount: this.turnCount,
      verbatimRun: this.verbatimRun,
      failingRun: this.failingRun,
      lastWasChange: this.lastWasChange,
      blindRun: this.blindRun,
    } as SnapshotJson;
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const s = parseSnapshotPart(historyStateSchema, state, 'snapshot.history');
    this.recent.splice(
      0,
      this.recent.length,
      ...s.recent.map((turn) => ({
        ...turn,
        // a sealed snapshot's own (its layout's `recent` keeps it); a validated one's is dropped by
        // the schema and computed again from the action key (hook37o: a hash of every kept action
        // key was most of a restore's work on its own)
        pairKey: pairKeyIn(turn) ?? pairKeyOf(keyHash(turn.actionKey), turn.outcomeKey),
        evidence: cleanEvidence(turn.evidence),
      })),
    );
    this.probes.restore(s.probes);
    this.rejections.restore(s.rejections);
    this.retries.restore(s.retries);
    this.searches.restore(s.searches);
    this.unseenPrints.restore(s.unseenPrints);
    this.seenLines.restore(s.seenLines);
    this.seenShapes.restore(s.seenShapes);
    this.seenErrors.restore(s.seenErrors);
    this.seenActions.restore(s.seenActions);
    this.pairCounts.clear();
    for (const [key, count] of s.pairCounts) {
      const pair = typeof key === 'string' ? pairKeyOfText(key) : key;
      this.pairCounts.set(pair, (this.pairCounts.get(pair) ?? 0) + count);
    }
    refill(this.errorCounts, s.errorCounts);
    refill(this.outcomeCounts, s.outcomeCounts);
    refill(this.messageCounts, s.messageCounts);
    this.messages.splice(
      0,
      this.messages.length,
      ...s.messages.map((m) => ({ ...m, blank: m.key === '', evidence: cleanEvidence(m.evidence) })),
    );
    this.uncounted = undefined;
    this.periodRuns.splice(0, this.periodRuns.length, ...s.periodRuns);
    this.lastInformativeStep = s.lastInformativeStep;
    this.turnsSinceInformative = s.turnsSinceInformative;
    this.staleSinceInformative = s.staleSinceInformative;
    this.rejectedSinceInformative = s.rejectedSinceInformative;
    this.turnCount = s.turnCount;
    this.verbatimRun = s.verbatimRun;
    this.failingRun = s.failingRun;
    this.lastWasChange = s.lastWasChange;
    this.blindRun = s.blindRun;
  }
}

/** The pair key a turn of a sealed snapshot holds; `undefined` in a validated one (see `historyStateSchema`). */
function pairKeyIn(turn: object): number | undefined {
  const key = (turn as { pairKey?: unknown }).pairKey;
  return typeof key === 'number' ? key : undefined;
}

function refill<K>(map: Map<K, number>, entries: Array<[K, number]>): void {
  map.clear();
  for (const [key, count] of entries) map.set(key, count);
}
