import { randomUUID } from 'node:crypto';
import { type Clock, InvalidInputError, type StateMachine, systemClock } from '@loopguard/core';
import { type Logger, RUN_STARTED_TOPIC, type RunTally, silentLogger } from '@loopguard/core/internal';
import type { UsageRecord } from '@loopguard/core/spend';
import {
  isStepLoopDetectionEnabled,
  type Step,
  StepLoopDetector,
  type StepVerdict,
} from '@loopguard/core/steps';
import type { LoopGuardOptions } from './loopGuardOptions.js';
import { RunSpend } from './RunSpend.js';
import { type RecordingPort, recordingPort } from './recordingPort.js';

/**
 * The least time between two writes of a run's tally (a tool call, usage): the first change after a
 * quiet stretch is written at once, later ones when 2 seconds have passed since the last write
 * (a timer), so a run writes at most once every 2 seconds whatever its pace, and once more at its
 * end where the adapter sees it.
 */
export const TALLY_DELAY_MS = 2_000;

/** The runs' tally writes waiting for their timer: written when the process is about to exit. */
const dueTallies = new Set<() => void>();
let exitListened = false;

/** Keeps `flush` to run at the process's `beforeExit` (one listener for every run). */
function dueOnExit(flush: () => void): void {
  dueTallies.add(flush);
  if (exitListened) return;
  exitListened = true;
  process.on('beforeExit', () => {
    for (const due of [...dueTallies]) due();
  });
}

/**
 * One agent run under one `StepLoopDetector`: what every adapter shares. It takes the steps the
 * adapter maps from the framework's events, keeps the nudges until the adapter delivers them, and
 * remembers the stop. A step the detector rejects (a tool input it cannot read) is logged and
 * skipped: the guard never breaks the run it watches.
 * @example
 * const run = new RunGuard({ taskId: 'T1' });
 * run.observe({ type: 'action', tool: 'bash', input: 'npm test' });
 * const nudge = run.takeNudge(); // null until a loop is found
 */
export class RunGuard {
  /** The run's detector (its `options`, `stepCount`, events). */
  readonly detector: StepLoopDetector;
  /** Every nudge message given in this run, oldest first. */
  readonly nudges: string[] = [];
  private stop: StepVerdict | null = null;
  private undelivered: string[] = [];
  private readonly recording: RecordingPort | undefined;
  private readonly logger: Logger | undefined;
  private childLog: Logger | undefined;
  /** The spend guard, when `spend` sets a budget. */
  readonly spend: RunSpend | undefined;
  /** Writes the run's `run_started` entry at its first step; `undefined` once written, or with nothing to write to. */
  private recordStart: (() => void) | undefined;
  /** Tool calls the detector has taken so far (its stop entries name the count: `toolCall`). */
  private toolCalls = 0;
  /** Writes the run's tally, once its start is recorded; `undefined` before, or with nowhere to write. */
  private writeTally: ((ended: boolean) => void) | undefined;
  /** When the tally was last written (the clock's ms); the next change waits for {@link TALLY_DELAY_MS} after it. */
  private tallyWrittenAt = Number.NEGATIVE_INFINITY;
  private readonly clock: Clock;
  /** The pending write of a changed tally ({@link TALLY_DELAY_MS}). */
  private tallyTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param options - the `StepLoopDetector` options; `stateMachine` may be synchronous or asynchronous.
   * @param adapter - the framework's name (`ai-sdk`, …), written in every entry's metadata; absent: none.
   *   An adapter's run without a `runId` gets a random one, so that its entries make one session.
   * @throws ConfigurationError naming the offending option.
   */
  constructor(options: LoopGuardOptions = {}, adapter?: string) {
    const { stateMachine, spend, projectDir = process.cwd(), ...given } = options;
    const runId = options.runId ?? (adapter === undefined ? undefined : randomUUID());
    const detectorOptions = { ...given, ...(runId === undefined ? {} : { runId }) };
    this.logger = options.logger;
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    // Anything but a port is left to the detector's option check, which names it.
    this.recording =
      typeof (stateMachine as { addContextEntry?: unknown } | undefined)?.addContextEntry === 'function'
        ? recordingPort(
            stateMachine as StateMachine,
            () => clock.now(),
            () => this.log,
            adapter,
          )
        : undefined;
    this.detector = new StepLoopDetector({
      ...detectorOptions,
      ...(stateMachine === undefined
        ? {}
        : { stateMachine: this.recording?.port ?? (stateMachine as never) }),
    });
    const { recording } = this;
    if (recording !== undefined && adapter !== undefined && runId !== undefined)
      this.recordStart = () => {
        recording.port.addContextEntry({
          entryType: 'learning',
          topic: RUN_STARTED_TOPIC,
          content: `${adapter} run ${runId} started`,
          relatedTasks: [options.taskId ?? runId],
          metadata: { runId, projectDir },
        });
        const { recordTally } = recording;
        if (recordTally !== undefined)
          this.writeTally = (ended) =>
            recordTally(this.tallyOf({ adapter, runId, projectDir, at: clock.now(), ended }));
      };
    this.spend = RunSpend.of(spend, {
      clock,
      taskId: options.taskId,
      runId,
      toolCalls: () => this.toolCalls,
      record: (entry) => this.recording?.port.addContextEntry(entry),
      warn: (message) => {
        this.nudges.push(message);
        this.undelivered.push(message);
      },
    });
  }

  /**
   * Counts the usage of one step for the spend guard (nothing without a budget). A warning is kept
   * for {@link takeNudge}; a stop makes {@link stopped} true.
   * @returns a promise while the pricing library loads (the first step with a money budget), else `undefined`.
   */
  observeUsage(records: readonly UsageRecord[]): Promise<void> | undefined {
    this.started();
    if (records.length > 0 && this.spend !== undefined) this.tallyChanged();
    return this.spend?.observe(records);
  }

  /**
   * The run has ended (the framework said so): its tally is written at once, marked ended, so that
   * the doors stop reading it `running`. Later steps are still judged (a run resumed).
   * @returns like {@link settled}.
   */
  end(): Promise<void> | undefined {
    this.flushTally(true);
    return this.settled();
  }

  /** The tally of the run now: its tool calls, and its spend and caps when a budget counts them. */
  private tallyOf(key: Pick<RunTally, 'adapter' | 'runId' | 'projectDir' | 'at' | 'ended'>): RunTally {
    const spent = this.spend?.spent;
    const caps = this.spend?.caps;
    return {
      ...key,
      toolCalls: this.toolCalls,
      tokens: spent?.tokens ?? null,
      costUsd: spent?.costUsd ?? null,
      unpricedTokens: spent?.unpricedTokens ?? null,
      budgetUsd: caps?.maxCostUsd ?? null,
      budgetTokens: caps?.maxTokens ?? null,
    };
  }

  /** Schedules the write of the changed tally, unless one is already due. */
  private tallyChanged(): void {
    if (this.writeTally === undefined || this.tallyTimer !== undefined) return;
    // the first change after a quiet stretch is written at once (a run shows its first call), the
    // others when the stretch since the last write is over
    const wait = this.tallyWrittenAt + TALLY_DELAY_MS - this.clock.now();
    if (wait <= 0) {
      this.flushTally(false);
      return;
    }
    this.tallyTimer = setTimeout(this.flushDue, wait);
    // The timer keeps no process alive: one about to exit writes what is due first (beforeExit).
    this.tallyTimer.unref?.();
    dueOnExit(this.flushDue);
  }

  private readonly flushDue = (): void => this.flushTally(false);

  /** Writes the tally now (clearing a pending write). */
  private flushTally(ended: boolean): void {
    if (this.tallyTimer !== undefined) clearTimeout(this.tallyTimer);
    this.tallyTimer = undefined;
    dueTallies.delete(this.flushDue);
    if (this.writeTally !== undefined) this.tallyWrittenAt = this.clock.now();
    try {
      this.writeTally?.(ended);
    } catch (error) {
      // the run goes on, as after any failed write (the guard never breaks the run)
      this.log.error({ err: error, topic: 'run tally' }, 'Recording a run failed');
    }
  }

  /** The guard's logger, made on first use: a silent pino logger costs more than a short run's steps. */
  private get log(): Logger {
    this.childLog ??= (this.logger ?? silentLogger()).child({ component: 'loopguard-agents' });
    return this.childLog;
  }

  /** The `stop` verdict once the detector has stopped the run, else `null`. */
  get stopVerdict(): StepVerdict | null {
    return this.stop;
  }

  /** Whether the detector or the spend guard has stopped the run. */
  get stopped(): boolean {
    return this.stop !== null || this.spend?.stopVerdict != null;
  }

  /**
   * Judges one step. A nudge is kept for {@link takeNudge}; a stop is kept in {@link stopVerdict}
   * (steps after a stop are not judged). Returns the verdict, or `null` when the step was skipped.
   */
  observe(step: Step): StepVerdict | null {
    this.started();
    if (this.stopped) return null;
    let verdict: StepVerdict;
    try {
      verdict = this.detector.observe(step);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      this.log.warn({ err: error }, 'Step skipped: the detector rejected it');
      return null;
    }
    if (step.type === 'action') {
      this.toolCalls++;
      this.tallyChanged();
    }
    if (verdict.action === 'nudge' && verdict.message !== null) {
      this.nudges.push(verdict.message);
      this.undelivered.push(verdict.message);
    }
    if (verdict.action === 'stop') this.stop = verdict;
    return verdict;
  }

  /**
   * Records the run's start once (the first step or usage it is shown), when something guards it:
   * its detection on (the run's `enabled` and the process's `setStepLoopDetectionEnabled`), or a
   * budget. A run switched off is no session: listed, it would read "no loop found" where loopguard
   * judged nothing (the hooks' off switches write nothing either).
   */
  private started(): void {
    if (this.recordStart === undefined) return;
    if (this.spend === undefined && !(this.detector.isEnabled && isStepLoopDetectionEnabled())) return;
    const record = this.recordStart;
    this.recordStart = undefined;
    try {
      record();
    } catch (error) {
      // the run goes on unrecorded, as after any failed write (the guard never breaks the run)
      this.log.error({ err: error, topic: RUN_STARTED_TOPIC }, 'Recording a run failed');
    }
  }

  /** The nudges not yet delivered, joined by a blank line (and marked delivered), or `null`. */
  takeNudge(): string | null {
    if (this.undelivered.length === 0) return null;
    const text = this.undelivered.join('\n\n');
    this.undelivered = [];
    return text;
  }

  /**
   * Resolves when the nudges and stops recorded so far are written; `undefined` when no write is
   * pending (always for a synchronous store), so that the adapters stay synchronous then.
   */
  settled(): Promise<void> | undefined {
    return this.recording?.settled();
  }
}
