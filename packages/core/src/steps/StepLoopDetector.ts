import type { Logger } from 'pino';
import { type Clock, systemClock } from '../kernel/clock.js';
import { silentLogger } from '../kernel/logger.js';
import { parseOptions } from '../kernel/parseOptions.js';
import { SafeEmitter } from '../kernel/SafeEmitter.js';
import type { StateMachine } from '../storage/ports.js';
import { ChantingRule } from './ChantingRule.js';
import { CycleRule } from './CycleRule.js';
import { isExemptAction, type StepExemptions } from './exemptions.js';
import { isStepLoopDetectionEnabled } from './globalSwitch.js';
import { OscillationRule } from './OscillationRule.js';
import { RepeatedActionRule } from './RepeatedActionRule.js';
import { RepeatedMessageRule } from './RepeatedMessageRule.js';
import { SameErrorRule } from './SameErrorRule.js';
import { StepLadder } from './StepLadder.js';
import { type JudgedEvent, type RuleHit, type StepRule, shorten } from './StepRule.js';
import { type Step, validateStep } from './step.js';
import { type StepEvidence, StepHistory, type Turn } from './stepHistory.js';
import { actionKey, actionText, KeyMemo, messageKey, observationKey } from './stepKeys.js';
import {
  type StepLoopDetectorOptions,
  type StepThresholds,
  stepLoopDetectorOptionsSchema,
} from './stepLoopDetectorOptions.js';
import { stepLoopEntry } from './stepLoopEntry.js';
import { stepLoopMessage } from './stepLoopMessage.js';
import {
  type PendingActionState as PendingAction,
  readSnapshotEnvelope,
  type SnapshotJson,
  STEP_SNAPSHOT_FORMAT,
  STEP_SNAPSHOT_VERSION,
  type StepDetectorSnapshot,
} from './stepSnapshot.js';
import type { StepLoopDetectorEvents, StepVerdict } from './stepVerdict.js';

export type { StepLoopDetectorEvents, StepVerdict } from './stepVerdict.js';

/** Context-entry topics of step-level loops: `loop_nudge` (a nudge given) and `loop_stop` (a run stopped). */
export const STEP_LOOP_TOPICS = ['loop_nudge', 'loop_stop'] as const;

const MEMO_CAPACITY = 512;

/**
 * Detects loops inside one agent run from its steps (tool calls, their results, the agent's text):
 * repeats, same-error retries, A-B-A-B oscillation, cycles of 3 to 5 turns, repeated messages and
 * chanting. The first detection nudges; a loop that goes on after the nudge with nothing fresh
 * stops. One instance per agent run; no I/O (nudges and stops are written through the optional
 * state machine port).
 *
 * Every `observe` costs the same whatever the run's length: the history is kept incrementally.
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
  private readonly history = new StepHistory((output, error) => this.memoisedObservationKey(output, error));
  private readonly ladder: StepLadder;
  private readonly stateMachine: StateMachine | undefined;
  private readonly taskId: string | undefined;
  private readonly runId: string | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly actionMemo = new KeyMemo(MEMO_CAPACITY);
  private readonly observationMemo = new KeyMemo(MEMO_CAPACITY);
  private readonly errorMemo = new KeyMemo(MEMO_CAPACITY);
  private pending: PendingAction | undefined;
  private steps = 0;

  /**
   * @param options - see {@link StepLoopDetectorOptions}.
   * @throws ConfigurationError naming the offending option.
   */
  constructor(options: StepLoopDetectorOptions = {}) {
    const parsed = parseOptions(stepLoopDetectorOptionsSchema, options, 'StepLoopDetector options');
    const log = (parsed.logger ?? silentLogger()).child({ component: 'StepLoopDetector' });
    super(log);
    this.log = log;
    this.clock = parsed.clock ?? systemClock;
    this.enabled = parsed.enabled;
    this.stateMachine = parsed.stateMachine;
    this.taskId = parsed.taskId;
    this.runId = parsed.runId;
    this.exemptions = { tools: parsed.exemptTools, commands: parsed.exemptCommands };
    this.options = Object.freeze({
      repeatThreshold: parsed.repeatThreshold,
      sameErrorThreshold: parsed.sameErrorThreshold,
      oscillationRepeats: parsed.oscillationRepeats,
      cycleRepeats: parsed.cycleRepeats,
      maxCycleLength: parsed.maxCycleLength,
      messageRepeatThreshold: parsed.messageRepeatThreshold,
      chantRepeats: parsed.chantRepeats,
      chantShare: parsed.chantShare,
      stopAfter: parsed.stopAfter,
      maxEvidence: parsed.maxEvidence,
    });
    this.ladder = new StepLadder(parsed.stopAfter);
    // Periodic rules first: a turn of a repeated cycle also recurs, and the cycle is the better name.
    this.turnRules = [
      new OscillationRule(parsed.oscillationRepeats, parsed.maxEvidence),
      new CycleRule(parsed.cycleRepeats, parsed.maxCycleLength, parsed.maxEvidence),
      new SameErrorRule(parsed.sameErrorThreshold),
      new RepeatedActionRule(parsed.repeatThreshold),
    ];
    this.messageRules = [
      new ChantingRule(parsed.chantRepeats, parsed.chantShare),
      new RepeatedMessageRule(parsed.messageRepeatThreshold),
    ];
  }

  /** Steps observed so far (valid ones; rejected steps are not counted). */
  get stepCount(): number {
    return this.steps;
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
   * the history, the ladder and each stateful rule write their own compact state, and its size
   * follows the run's distinct turns, not its length. Options are not part of it.
   *
   * @example
   * const saved = JSON.stringify(detector.snapshot());
   * // later, in another process, with the same options:
   * const detector = StepLoopDetector.restore(JSON.parse(saved), options);
   */
  snapshot(): StepDetectorSnapshot {
    const rules: Record<string, SnapshotJson> = {};
    for (const rule of [...this.turnRules, ...this.messageRules]) {
      if (rule.snapshot !== undefined) rules[rule.loopType] = rule.snapshot();
    }
    return {
      format: STEP_SNAPSHOT_FORMAT,
      version: STEP_SNAPSHOT_VERSION,
      steps: this.steps,
      enabled: this.enabled,
      pending: this.pending === undefined ? null : { ...this.pending },
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
    for (const rule of [...detector.turnRules, ...detector.messageRules]) {
      if (rule.restore !== undefined) rule.restore(state.rules[rule.loopType]);
    }
    detector.steps = state.steps;
    detector.enabled = state.enabled;
    detector.pending = state.pending ?? undefined;
    return detector;
  }

  /**
   * Takes the run's next step and returns the verdict.
   *
   * @param step - `{ type: 'action', tool, input }`, `{ type: 'observation', tool?, output, error? }`
   *   or `{ type: 'message', text }`.
   * @throws InvalidInputError naming the offending field; nothing is recorded then.
   * @example detector.observe({ type: 'action', tool: 'bash', input: 'npm test' }).action; // 'continue'
   */
  observe(step: Step): StepVerdict {
    const valid = validateStep(step);
    const index = this.steps++;
    if (!this.enabled || !isStepLoopDetectionEnabled()) return this.continueAt(index);
    switch (valid.type) {
      case 'action': {
        const closed = this.closePending(index);
        const text = actionText(valid.input);
        this.pending = {
          step: index,
          tool: valid.tool,
          text,
          key: this.actionMemo.get(`${valid.tool}\u0000${text}`, () => actionKey(valid.tool, valid.input)),
          exempt: isExemptAction(this.exemptions, valid.tool, text),
        };
        return closed ?? this.continueAt(index);
      }
      case 'observation': {
        const action = this.pending;
        this.pending = undefined;
        if (action?.exempt) return this.continueAt(index);
        const error = valid.error === true;
        return this.judgeTurn(
          index,
          action,
          this.observationKeyFor(action, valid.output, error),
          error,
          valid.output,
        );
      }
      case 'message': {
        const key = messageKey(valid.text);
        const message = {
          step: index,
          key,
          text: valid.text,
          evidence: { step: index, message: shorten(valid.text) },
        };
        this.history.addMessage(message);
        return this.judge(index, { kind: 'message', message }, this.messageRules);
      }
    }
  }

  /**
   * The observation's key. The first result of a new action is fresh whatever it says, so its
   * normalisation waits until the action comes again (see {@link StepHistory.defer}).
   */
  private observationKeyFor(action: PendingAction | undefined, output: string, error: boolean): string {
    if (action !== undefined && !this.history.knowsAction(action.key)) {
      return this.history.defer(action.key, output, error);
    }
    if (action !== undefined) this.history.settle(action.key);
    return this.memoisedObservationKey(output, error);
  }

  private readonly memoisedObservationKey = (output: string, error: boolean): string =>
    (error ? this.errorMemo : this.observationMemo).get(output, (text) => observationKey(text, error));

  /** An action that got no observation before the next action is a turn of its own. */
  private closePending(index: number): StepVerdict | undefined {
    const action = this.pending;
    this.pending = undefined;
    if (action === undefined || action.exempt) return undefined;
    const verdict = this.judgeTurn(action.step, action, '', false, undefined);
    return verdict.action === 'continue' ? undefined : { ...verdict, step: index };
  }

  private judgeTurn(
    index: number,
    action: PendingAction | undefined,
    obsKey: string,
    error: boolean,
    output: string | undefined,
  ): StepVerdict {
    const evidence: StepEvidence = { step: index };
    if (action !== undefined) {
      evidence.tool = action.tool;
      evidence.action = shorten(action.text);
    }
    if (output !== undefined) {
      evidence.output = shorten(output);
      evidence.error = error;
    }
    const actionPart = action?.key ?? '';
    const turn: Turn = {
      step: index,
      actionKey: actionPart,
      observationKey: obsKey,
      pairKey: `${actionPart}\u0001${obsKey}`,
      error,
      evidence,
    };
    if (this.history.addTurn(turn)) this.ladder.reset();
    return this.judge(index, { kind: 'turn', turn }, this.turnRules);
  }

  private judge(index: number, event: JudgedEvent, rules: readonly StepRule[]): StepVerdict {
    let hit: RuleHit | null = null;
    for (const rule of rules) {
      hit = rule.judge(event, this.history);
      if (hit !== null) break;
    }
    if (hit === null) return this.continueAt(index);
    const rung = this.ladder.climb();
    const verdict: StepVerdict = {
      action: rung,
      loopType: hit.loopType,
      repeats: hit.repeats,
      evidence: hit.evidence.slice(-this.options.maxEvidence),
      message: rung === 'continue' ? null : stepLoopMessage(rung, hit),
      since: hit.since,
      step: index,
    };
    if (verdict.action !== 'continue') this.report(verdict);
    return verdict;
  }

  private report(verdict: StepVerdict): void {
    this.log.info(
      { loopType: verdict.loopType, repeats: verdict.repeats, step: verdict.step, action: verdict.action },
      'Step loop detected',
    );
    this.emit('stepLoopDetected', verdict);
    if (this.stateMachine === undefined || this.taskId === undefined) return;
    try {
      const entry = this.stateMachine.addContextEntry(
        stepLoopEntry(verdict, {
          taskId: this.taskId,
          runId: this.runId,
          detectedAt: this.clock.now(),
          thresholds: this.options,
        }),
      );
      this.emit('stepLoopRecorded', entry);
    } catch (error) {
      // Recording must never break the agent run it watches: the verdict is still returned.
      this.log.error({ err: error, step: verdict.step }, 'Recording a step loop failed');
    }
  }

  private continueAt(index: number): StepVerdict {
    return {
      action: 'continue',
      loopType: null,
      repeats: 0,
      evidence: [],
      message: null,
      since: null,
      step: index,
    };
  }
}
