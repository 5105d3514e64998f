import type { Logger } from 'pino';
import { systemClock } from '../kernel/clock.js';
import { InvalidInputError } from '../kernel/errors.js';
import { silentLogger } from '../kernel/logger.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import { describeValue } from '../kernel/validate.js';
import { type ActionKind, classifyAction, commandTextOf } from './actions/actionKind.js';
import { isExemptAction, type StepExemptions } from './actions/exemptions.js';
import { actionText } from './actions/inputText.js';
import { canonicalStep } from './actions/shellCommand.js';
import { type PendingAction, pendingActionOf, pendingActionState } from './history/pendingAction.js';
import { RecentMemo } from './history/recentMemo.js';
import { StepHistory } from './history/stepHistory.js';
import { TurnReader } from './history/turnOutcome.js';
import { shorten } from './keys/shorten.js';
import { actionKey, isBlankMessage } from './keys/stepKeys.js';
import { isStepLoopDetectionEnabled } from './options/globalSwitch.js';
import { type SealChecksum, sealSnapshot, unsealSnapshot } from './options/snapshotSeal.js';
import {
  parsedStepLoopDetectorOptions,
  type StepLoopDetectorOptions,
  type StepThresholds,
  thresholdsOf,
} from './options/stepLoopDetectorOptions.js';
import {
  readSnapshotEnvelope,
  restoreSealedParts,
  type SnapshotJson,
  STEP_SNAPSHOT_FORMAT,
  STEP_SNAPSHOT_VERSION,
  type StepDetectorSnapshot,
} from './options/stepSnapshot.js';
import { writtenReader } from './probes/actedReads.js';
import { searchReader } from './probes/fileSearch.js';
import { printWorkReader } from './probes/printRewrite.js';
import { printEditReader } from './probes/unseenPrints.js';
import { ChantingStream } from './rules/ChantingStream.js';
import { StepLadder } from './rules/StepLadder.js';
import type { JudgedEvent, RuleHit, StepRule } from './rules/StepRule.js';
import { messageRulesOf, turnRulesOf } from './rules/stepRules.js';
import type { Step } from './step.js';
import { stepLoopMessage } from './stepLoopMessage.js';
import { reportStepLoop, type StepLoopSinks } from './stepLoopRecorder.js';
import {
  chantingStop,
  continueVerdict,
  type StepLoopDetectorEvents,
  type StepVerdict,
} from './stepVerdict.js';

export { STEP_LOOP_TOPICS } from '../model/contextEntry.js';

export type { StepLoopDetectorEvents, StepVerdict } from './stepVerdict.js';

/** Recent actions whose key and kind are remembered (see {@link RecentMemo}). */
const MEMO_CAPACITY = 32;
/** Where the snapshot keeps the state of the message being streamed (beside the rules' states). */
const PARTIAL_KEY = 'partial_message';

/**
 * Detects loops inside one agent run from its steps (tool calls, their results, the agent's text).
 * Progress is judged by what the agent learns, not by whether its text changed: a turn counts as
 * progress only when its result shows something new (see {@link StepHistory}). Rules catch
 * repeats, near-duplicate retries, growing output, same-class errors, stagnation across different
 * actions, rejected replies, oscillation, cycles of up to `maxCycleLength` turns, repeated or
 * near-duplicate messages and chanting (also while a message streams: {@link observePartial}).
 * The first detection nudges; a loop that goes on after the nudge stops. One instance per agent
 * run; no I/O (nudges and stops are written through the optional state machine port).
 *
 * Every `observe` costs the same whatever the run's length: the history is kept incrementally and
 * every index over it is bounded.
 *
 * @example
 * const detector = new StepLoopDetector({ stateMachine, taskId: 'T1' });
 * for (const step of steps) {
 *   const verdict = detector.observe(step);
 *   if (verdict.action === 'nudge') agent.tell(verdict.message);
 *   if (verdict.action === 'stop') break;
 * }
 */
export class StepLoopDetector extends SafeEmitter<StepLoopDetectorEvents> {
  /** The thresholds in force, defaults applied. */
  readonly options: Readonly<StepThresholds>;
  private enabled: boolean;
  private readonly turnRules: readonly StepRule[];
  private readonly messageRules: readonly StepRule[];
  private readonly exemptions: StepExemptions;
  private readonly history = new StepHistory();
  private readonly reader = new TurnReader(this.history);
  private readonly ladder: StepLadder;
  private readonly partial: ChantingStream;
  private readonly sinks: StepLoopSinks;
  private readonly log: Logger;
  /**
   * The key of each recent action and what it does (a cache: the same answers without it), one
   * lookup for both; never changed by its readers.
   */
  private readonly actionMemo = new RecentMemo<{ key: string; kind: ActionKind }>(MEMO_CAPACITY);
  private pending: PendingAction | undefined;
  private steps = 0;
  private calls = 0;
  /** While {@link foresee} judges a call that has not run. */
  private foreseeing = false;

  /**
   * @param options - see {@link StepLoopDetectorOptions}.
   * @throws ConfigurationError naming the offending option.
   */
  constructor(options: StepLoopDetectorOptions = {}) {
    const parsed = parsedStepLoopDetectorOptions(options);
    const log = (parsed.logger ?? silentLogger()).child({ component: 'StepLoopDetector' });
    super(log);
    this.log = log;
    this.enabled = parsed.enabled;
    this.exemptions = { tools: parsed.exemptTools, commands: parsed.exemptCommands };
    const t: StepThresholds = thresholdsOf(parsed);
    this.options = Object.freeze(t);
    this.sinks = {
      log,
      clock: parsed.clock ?? systemClock,
      stateMachine: parsed.stateMachine,
      taskId: parsed.taskId,
      runId: parsed.runId,
      thresholds: this.options as unknown as Readonly<Record<string, number>>,
      detected: (verdict) => this.emit('stepLoopDetected', verdict),
      recorded: (entry) => this.emit('stepLoopRecorded', entry),
    };
    this.ladder = new StepLadder(t.stopAfter);
    this.partial = new ChantingStream(t.streamChantRepeats, t.chantShare);
    this.turnRules = turnRulesOf(t);
    this.messageRules = messageRulesOf(t);
  }

  /** Steps observed so far (valid ones; rejected steps are not counted). */
  get stepCount(): number {
    return this.steps;
  }

  /**
   * Tool calls observed so far that changed files, as the detector reads them (an editor's edit or
   * write, a shell line that writes, `sed -i`, `pip install`). A caller that foresees a call's
   * result from its last one (the command hook's stop before a repeat runs) may do so only while
   * this count is the one at that result: after a change the result may differ.
   */
  get changeCount(): number {
    return this.history.probes.changes;
  }

  /**
   * Counts a tool call the model made that this detector will never observe (its caller refused it
   * before it ran, as the command hook does the model's own calls against loopguard): the calls after
   * it are numbered among all the model made, in verdicts, evidence and messages alike. Nothing is
   * judged, and the loop in progress goes on as if the call had not been made.
   */
  countUnobservedCall(): void {
    this.calls++;
  }

  /**
   * Judges a call about to run as if it gave `output` again: a caller that remembers the call's last
   * result, nothing changed since, and denies the call when the verdict is `stop` (the command
   * hook). The call and its foreseen result are observed as any other; a stop's message says the call
   * was refused before it ran and quotes only the calls that ran (it gave no output), so that the
   * model reads what `status` says: that call did not run (story56).
   * @returns the verdict of the call's two steps (the first that is not `continue`).
   */
  foresee(tool: string, input: unknown, output: string, error: boolean): StepVerdict {
    const action = this.observe({ type: 'action', tool, input });
    if (action.action !== 'continue') return action;
    this.foreseeing = true;
    try {
      return this.observe({ type: 'observation', tool, output, error });
    } finally {
      this.foreseeing = false;
    }
  }

  /** Whether this run's detection is on (the per-run switch; the global one is {@link setStepLoopDetectionEnabled}). */
  get isEnabled(): boolean {
    return this.enabled;
  }

  /** Turns this run's detection off (`observe` returns `continue`) or back on. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  /**
   * The detector's incremental state as plain JSON (store it with `JSON.stringify`), to continue
   * the run in another process with {@link StepLoopDetector.restore}. Not a replay of the steps:
   * the history, the ladder, the streaming check and each stateful rule write their own compact
   * state, bounded by the history's windows and sets, not by the run's length. Options are not part of it.
   *
   * @example
   * const saved = JSON.stringify(detector.snapshot());
   * // later, in another process, with the same options:
   * const detector = StepLoopDetector.restore(JSON.parse(saved), options);
   */
  snapshot(): StepDetectorSnapshot {
    const rules: Record<string, SnapshotJson> = { [PARTIAL_KEY]: this.partial.snapshot() };
    for (const rule of [...this.turnRules, ...this.messageRules]) {
      if (rule.snapshot !== undefined) rules[rule.loopType] = rule.snapshot();
    }
    const pending = this.pending;
    return {
      format: STEP_SNAPSHOT_FORMAT,
      version: STEP_SNAPSHOT_VERSION,
      steps: this.steps,
      calls: this.calls,
      enabled: this.enabled,
      pending: pending === undefined ? null : pendingActionState(pending),
      history: this.history.snapshot(),
      ladder: this.ladder.snapshot(),
      rules,
    };
  }

  /**
   * A detector built with `options` that continues the run `snapshot` was taken of: every later
   * step gets the verdict the original detector would have given. Give it the options the original
   * had (other thresholds apply from the next step on). A snapshot of another version is upgraded
   * when a reader exists, else discarded: the detector starts afresh (`stepCount` 0) and logs a
   * warning.
   *
   * @param snapshot - what {@link snapshot} returned, possibly through `JSON.stringify`/`JSON.parse`.
   * @param options - see {@link StepLoopDetectorOptions}.
   * @throws InvalidInputError naming the field when `snapshot` is not a step detector snapshot or is malformed.
   * @throws ConfigurationError naming the offending option.
   */
  static restore(snapshot: unknown, options: StepLoopDetectorOptions = {}): StepLoopDetector {
    const detector = new StepLoopDetector(options);
    const state = readSnapshotEnvelope(snapshot);
    if (state === undefined) {
      const version = (snapshot as { version?: unknown }).version;
      detector.log.warn({ version, supported: STEP_SNAPSHOT_VERSION }, 'Step detector snapshot discarded');
      return detector;
    }
    detector.history.restore(state.history);
    detector.ladder.restore(state.ladder);
    detector.partial.restore(state.rules[PARTIAL_KEY]);
    for (const rule of [...detector.turnRules, ...detector.messageRules]) {
      if (rule.restore !== undefined) rule.restore(state.rules[rule.loopType]);
    }
    detector.steps = state.steps;
    detector.calls = state.calls ?? 0;
    detector.enabled = state.enabled;
    const pending = state.pending;
    detector.pending = pending === null ? undefined : pendingActionOf(pending);
    return detector;
  }

  /**
   * {@link snapshot} as sealed text, to store as it is: its JSON after a stamp of this build's
   * snapshot version and layout and a checksum, which {@link restoreSealed} reads back without
   * validating it again.
   * @param checksum - the seal's checksum; default the JavaScript FNV-1a hash (`FNV_SEAL_CHECKSUM`).
   * @example store.write(detector.sealedSnapshot());
   */
  sealedSnapshot(checksum?: SealChecksum): string {
    return sealSnapshot(this.snapshot(), checksum);
  }

  /**
   * {@link restore} from stored text. A snapshot this build sealed ({@link sealedSnapshot}) and that
   * is unchanged since is restored as written: it is this build's own output, and validating every
   * part again is most of a restore's cost. Any other text (a plain JSON snapshot, another build's,
   * one changed since it was sealed) is validated like any input, as {@link restore} does.
   *
   * @param text - what {@link sealedSnapshot} returned, or `JSON.stringify` of a {@link snapshot}.
   * @param options - see {@link StepLoopDetectorOptions}.
   * @param checksum - the checksum {@link sealedSnapshot} was given (a text sealed with another is
   *   validated); default the JavaScript FNV-1a hash (`FNV_SEAL_CHECKSUM`).
   * @throws SyntaxError when the text is not JSON.
   * @throws InvalidInputError naming the field when an unsealed snapshot is malformed.
   * @throws ConfigurationError naming the offending option.
   */
  static restoreSealed(
    text: string,
    options: StepLoopDetectorOptions = {},
    checksum?: SealChecksum,
  ): StepLoopDetector {
    const { state, sealed } = unsealSnapshot(text, checksum);
    if (!sealed) return StepLoopDetector.restore(state, options);
    return restoreSealedParts(() => StepLoopDetector.restore(state, options));
  }

  /**
   * Takes the run's next step and returns the verdict.
   *
   * @param step - `{ type: 'action', tool, input }`, `{ type: 'observation', tool?, output, error? }`
   *   or `{ type: 'message', text }`.
   * @throws InvalidInputError naming the offending field (a bad type, an input that cannot be
   *   serialised: a cycle, a BigInt, a throwing getter or Proxy trap, nesting deeper than
   *   `MAX_INPUT_DEPTH` (64)); the step is not counted and nothing is recorded then.
   * @example detector.observe({ type: 'action', tool: 'bash', input: 'npm test' }).action; // 'continue'
   */
  observe(step: Step): StepVerdict {
    const valid = canonicalStep(step);
    const text = valid.type === 'action' ? actionText(valid.input) : '';
    const index = this.steps++;
    if (valid.type === 'action') this.calls++;
    if (!this.enabled || !isStepLoopDetectionEnabled()) return this.continueAt(index);
    switch (valid.type) {
      case 'action': {
        // Looked up, then computed on a miss: no closure a call for the memo's `get`.
        let known = this.actionMemo.find(valid.tool, text);
        if (known === undefined) {
          known = {
            key: actionKey(valid.tool, text, valid.input),
            kind: classifyAction(valid.tool, valid.input),
          };
          this.actionMemo.remember(valid.tool, text, known);
        }
        const { key, kind } = known;
        const closed = this.closePending(index, key);
        const command = commandTextOf(valid.input);
        // An editor's change: the print calls it adds and takes out, read when the ledger asks (not for its own scripts).
        const prints = kind.kind === 'change' ? printEditReader(valid.input) : undefined;
        this.pending = {
          step: index,
          call: this.calls,
          tool: valid.tool,
          text,
          key,
          exempt: isExemptAction(this.exemptions, valid.tool, command, text),
          kind,
          search: searchReader(command),
          prints,
          printWork: prints === undefined ? undefined : printWorkReader(valid.input, prints),
          written: kind.kind === 'change' ? writtenReader(valid.input) : undefined,
        };
        return closed ?? this.continueAt(index);
      }
      case 'observation': {
        const action = this.pending;
        this.pending = undefined;
        // a waiting call waits only where it ran: one the CLI refused came back at once
        if (action?.exempt && valid.refused !== true) return this.continueAt(index);
        return this.judgeTurn(index, action, valid.output, valid.error === true);
      }
      case 'message': {
        this.partial.reset();
        const message = {
          step: index,
          blank: isBlankMessage(valid.text),
          text: valid.text,
          evidence: { step: index, call: this.calls, message: shorten(valid.text) },
        };
        this.history.addMessage(message);
        if (message.blank) this.history.rejectedSinceInformative++;
        return this.judge(index, { kind: 'message', message }, this.messageRules);
      }
    }
  }

  /**
   * Takes the next piece of a message while it streams (Claude Code's `--include-partial-messages`
   * deltas) and returns `stop` as soon as its repetition is certain: lines or sentences repeated
   * `streamChantRepeats` times in one uninterrupted run of prose, making up at least `chantShare` of
   * the prose so far. Inside one
   * message a nudge cannot be heard, so there is no nudge: `continue`, then `stop`. Pass the complete
   * message to {@link observe} as usual when it ends (that starts the next message's buffer). A
   * partial is not a step: it is not counted and the step index does not move.
   *
   * @throws InvalidInputError when `delta` is not a string.
   * @example if (detector.observePartial(delta).action === 'stop') abortGeneration();
   */
  observePartial(delta: string): StepVerdict {
    if (typeof delta !== 'string') {
      throw new InvalidInputError(`delta must be a string, got ${describeValue(delta)}`);
    }
    const index = this.steps;
    if (!this.enabled || !isStepLoopDetectionEnabled()) return this.continueAt(index);
    const found = this.partial.push(delta);
    if (found === null) return this.continueAt(index);
    const verdict = chantingStop(found, index, this.calls);
    reportStepLoop(this.sinks, verdict);
    return verdict;
  }

  /**
   * An action that got no observation before the next action is a turn of its own; `nextKey` is the
   * key of the action that closes it (the same call again is a repeat in progress).
   */
  private closePending(index: number, nextKey: string): StepVerdict | undefined {
    const action = this.pending;
    this.pending = undefined;
    if (action === undefined || action.exempt) return undefined;
    const verdict = this.judgeTurn(action.step, action, undefined, false, nextKey === action.key);
    return verdict.action === 'continue' ? undefined : { ...verdict, step: index, toolCall: this.calls };
  }

  private judgeTurn(
    index: number,
    action: PendingAction | undefined,
    output: string | undefined,
    error: boolean,
    calledAgain = false,
  ): StepVerdict {
    const turn = this.reader.read(index, action, output, error);
    if (calledAgain) turn.calledAgain = true;
    this.history.addTurn(turn);
    if (this.ladder.endedBy(turn, this.history)) this.ladder.reset();
    return this.judge(index, { kind: 'turn', turn }, this.turnRules);
  }

  private judge(index: number, event: JudgedEvent, rules: readonly StepRule[]): StepVerdict {
    let hit: RuleHit | null = null;
    for (const rule of rules) {
      hit = rule.judge(event, this.history);
      if (hit !== null) break;
    }
    if (hit === null) return this.continueAt(index);
    let followsNudge = this.ladder.isNudged;
    // The thoughts that come with a looping action are that loop's, not a second one: while a loop
    // of turns is nudged, the turn rules decide the stop.
    const thoughts = event.kind === 'message' && followsNudge && !this.isMessageLoop(this.ladder.nudgedFor);
    // And the other way: a turn loop after a nudge about the thoughts is first nudged itself.
    const nudgedFor = this.ladder.nudgedFor;
    if (event.kind === 'turn' && followsNudge && this.isMessageLoop(nudgedFor) && hit.loopType !== nudgedFor)
      this.ladder.reset();
    followsNudge = this.ladder.isNudged || hit.nudged === true;
    const rung = thoughts ? 'continue' : this.ladder.climb(index, hit.loopType, hit.progress, hit.nudged);
    // a call judged before it ran gave no output: its evidence is a forecast, not a fact
    const refused = this.foreseeing && rung === 'stop' ? this.calls : undefined;
    const evidence = hit.evidence.filter((e) => refused === undefined || e.call !== refused);
    const verdict: StepVerdict = {
      action: rung,
      loopType: hit.loopType,
      repeats: hit.repeats,
      evidence: evidence.slice(-this.options.maxEvidence),
      message: rung === 'continue' ? null : stepLoopMessage(rung, hit, refused),
      since: hit.since,
      step: index,
      toolCall: this.calls,
      followsNudge,
    };
    if (verdict.action !== 'continue') reportStepLoop(this.sinks, verdict);
    return verdict;
  }

  private isMessageLoop(loopType: string | null): boolean {
    return this.messageRules.some((rule) => rule.loopType === loopType);
  }

  private continueAt(index: number): StepVerdict {
    return continueVerdict(index, this.calls);
  }
}
