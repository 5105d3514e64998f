import { resolve } from 'node:path';
import { type Clock, type ContextEntryInput, type LoopDetector, systemClock } from '@loopguard/core';
import { type BreakerVerdict, StagnationBreaker } from '@loopguard/core/breaker';
import { type GuardIteration, GuardSet } from '@loopguard/core/guards';
import { loopKindWords, resumeHint, runReasonWords, runStatusWords } from '@loopguard/core/internal';
import type { RunRecord, SqliteRunStore } from '@loopguard/sqlite';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES, type ExitCode } from '../terminal/exitCodes.js';
import { runAgentIteration } from './agentIteration.js';
import { tailOf } from './agentResult.js';
import { runDirectory } from './artifacts.js';
import { checkEvidence } from './evidence.js';
import { GitWorkspace } from './GitWorkspace.js';
import { reportIteration } from './iterationReport.js';
import { claimsOf, judgeIteration } from './judgeIteration.js';
import { currentTask, readPlan } from './plan.js';
import { RunDisplay } from './RunDisplay.js';
import { recordLoopEntries } from './runLoopEntries.js';
import type { RunOptions } from './runOptions.js';
import { RunSpend, settleSpend } from './runSpend.js';
import { saveIteration } from './saveIteration.js';
import { INTERRUPTED, type Outcome, type SessionState } from './sessionState.js';
import { StagnationActions } from './stagnationActions.js';
import { recordTaskAttempt } from './taskAttempt.js';
import { RunWaits, realSleep, type Sleep } from './waits.js';

/** Everything a {@link RunSession} needs. */
export interface RunSessionInput {
  /** Where it reads and writes. */
  io: CliIo;
  /** The run's row (new, or the one to resume). */
  run: RunRecord;
  /** The run store on `.loopguard/state.db`. */
  runs: SqliteRunStore;
  /** The validated options. */
  options: RunOptions;
  /** The prompt given to the agent on stdin each iteration. */
  prompt: string;
  /** Stops the run (the user's SIGINT/SIGTERM). */
  signal: AbortSignal;
  /**
   * The seed-002 detector on the same state file: with a task (`--task`, `--plan`) each iteration is
   * also an attempt at it (task id scoped to the run), so a revisited finished task or a blocked
   * spin opens the breaker too.
   */
  loopDetector?: LoopDetector;
  /** Source of time for the breaker, the guards, the waits and the records. @default systemClock */
  clock?: Clock;
  /** How the waits sleep. @default a real timer */
  sleep?: Sleep;
  /** Tags the agent's environment so that its whole process tree is found and ended (see `runAgent`). */
  agentToken?: string;
  /** Called with each agent's pid (its process group id) when it starts. */
  onAgentStart?: (pid: number) => void;
  /** Writes a context entry (the spend guard's warnings and stops) to the run's state file. */
  recordEntry?: (entry: ContextEntryInput) => void;
}

/**
 * One guarded run of an agent command: runs it once per iteration, judges each iteration
 * ({@link judgeIteration}) with the {@link StagnationBreaker} and the {@link GuardSet}, writes the
 * artifacts and the state, waits ({@link RunWaits}) and acts when the breaker opens
 * ({@link StagnationActions}). Resuming a run is constructing a session on its stored row.
 */
export class RunSession {
  private readonly display: RunDisplay;
  private readonly breaker: StagnationBreaker;
  private readonly guards: GuardSet;
  private readonly waits: RunWaits;
  private readonly actions: StagnationActions;
  private readonly clock: Clock;
  private readonly runDir: string;
  private readonly history: GuardIteration[] = [];
  private readonly pendingWrites: Array<Promise<Error | null>> = [];
  private readonly state: SessionState;
  private nudges: string[] = [];

  constructor(private readonly input: RunSessionInput) {
    const { run, options, io } = input;
    this.clock = input.clock ?? systemClock;
    this.display = new RunDisplay(io, options.json, this.clock);
    this.runDir = runDirectory(run.cwd, run.id);
    this.state = {
      modelIndex: run.modelIndex,
      failureContext: null,
      lastError: null,
      lastTask: null,
      skipped: new Set(),
    };
    const resuming = run.iteration > 0 || run.breaker !== null;
    this.breaker = new StagnationBreaker({
      runId: run.id,
      stagnationThreshold: options.stagnationThreshold,
      sameErrorThreshold: options.sameErrorThreshold,
      taskThreshold: options.taskThreshold,
      permissionDenialThreshold: options.permissionDenialThreshold,
      testOnlyShare: options.testOnlyShare,
      cooldownMs: options.cooldown,
      autoReset: options.autoReset,
      clock: this.clock,
      ...(resuming ? { snapshot: run.breaker } : {}),
    });
    this.breaker.on('breakerStateChanged', (t) => {
      input.runs.appendTransition(t);
      const line = `breaker ${this.display.state(t.from)} -> ${this.display.state(t.to)}: ${runReasonWords(t.reason)}`;
      this.display.event('breaker_state_changed', { ...t }, line);
    });
    this.guards = new GuardSet({
      maxIterations: options.maxIterations,
      maxRuntimeMinutes: options.maxRuntime / 60_000,
      consecutiveFailureLimit: options.maxConsecutiveFailures,
      clock: this.clock,
    });
    const { display, breaker, state, runDir } = this;
    this.waits = new RunWaits({
      runId: run.id,
      options,
      display,
      signal: input.signal,
      clock: this.clock,
      sleep: input.sleep ?? realSleep,
    });
    this.actions = new StagnationActions({ io, display, options, breaker, state, runId: run.id, runDir });
  }

  /** Runs iterations until the run completes, pauses, aborts, spends its budget or is interrupted. */
  async execute(): Promise<ExitCode> {
    const { run, runs } = this.input;
    if (this.breaker.restoreNotice !== null) this.warn(`run ${run.id}: ${this.breaker.restoreNotice}`);
    runs.updateRun(run.id, { status: 'running', reason: null, breakerState: this.breaker.state });
    // a loopguard killed between recording an iteration and updating its run resumes after the record
    let last = run.iteration;
    for (const row of runs.iterations(run.id)) {
      last = Math.max(last, row.iteration);
      this.history.push({ iteration: row.iteration, passed: row.exitCode === 0 });
    }
    const workspace = await GitWorkspace.open(run.cwd, this.runDir);
    if (workspace === null) this.warn('not a git repository: the no-file-changes signal is unavailable');
    const startedAt = this.clock.now();
    this.display.event(
      'run_started',
      {
        run: run.id,
        command: run.command,
        iteration: run.iteration + 1,
        breaker: this.breaker.state,
        git: workspace !== null,
      },
      `run ${run.id}${run.iteration > 0 ? ` resumed at iteration ${run.iteration + 1}` : ''}: ${run.command.join(' ')}`,
    );
    const outcome = await this.loop(workspace, startedAt, last);
    for (const error of await Promise.all(this.pendingWrites)) {
      if (error !== null) this.warn(`an iteration artifact could not be written: ${error.message}`);
    }
    return this.finish(outcome);
  }

  private async loop(workspace: GitWorkspace | null, startedAt: number, last: number): Promise<Outcome> {
    const { run, runs, options, signal } = this.input;
    let tree = workspace === null ? null : await workspace.snapshot();
    const spend = await RunSpend.create(options, this.clock);
    for (let iteration = last; ; ) {
      if (signal.aborted) return INTERRUPTED;
      const n = iteration + 1;
      const guard = this.guards.check({ iteration: n, history: this.history, startedAt });
      if (!guard.canContinue) {
        if (guard.blockedBy === 'max_iterations' || guard.blockedBy === 'max_runtime') {
          return { status: 'budget_spent', exitCode: EXIT_CODES.budgetSpent, reason: guard.message };
        }
        const outcome = await this.trip(`guard ${guard.blockedBy}: ${guard.message}`, iteration);
        if (outcome !== null) return outcome;
      }
      if (!(await this.waits.beforeIteration(this.breaker))) return INTERRUPTED;

      const task = this.currentTask();
      const model = options.modelProgression[this.state.modelIndex] ?? null;
      const command = run.command.map((arg) => (model === null ? arg : arg.replaceAll('{model}', model)));
      this.display.event(
        'iteration_started',
        {
          run: run.id,
          iteration: n,
          maxIterations: options.maxIterations,
          model,
          task,
          breaker: this.breaker.state,
        },
        `iteration ${n}/${options.maxIterations}${model === null ? '' : ` (model ${model})`}${task === null ? '' : ` task: ${task}`}`,
      );
      const iterationStart = this.clock.now();
      this.waits.countCall(iterationStart);
      const prompt = this.promptFor();
      const ran = await runAgentIteration({
        runId: run.id,
        command,
        cwd: run.cwd,
        prompt,
        options,
        signal,
        display: this.display,
        workspace,
        treeBefore: tree,
        ...(this.input.agentToken === undefined ? {} : { token: this.input.agentToken }),
        ...(this.input.onAgentStart === undefined ? {} : { onStart: this.input.onAgentStart }),
        ...(spend === null ? {} : { spend: { guard: spend, task } }),
      });
      const { result, changes, stopVerdict } = ran;
      if (result.interrupted) return INTERRUPTED;
      recordLoopEntries(
        ran.loops,
        { runId: run.id, iteration: n, task, now: this.clock.now() },
        this.input.recordEntry,
      );
      iteration = n;
      tree = ran.tree;
      this.nudges = ran.nudges;
      if (ran.malformed.lines > 0)
        this.warn(
          `iteration ${n}: ${ran.malformed.lines} agent output line(s) could not be read as tool calls or messages (first: ${ran.malformed.first})`,
        );
      if (stopVerdict !== null) {
        const { loopType, repeats, evidence, toolCall } = stopVerdict;
        this.display.event(
          'step_loop_stopped',
          { run: run.id, iteration: n, loopType, repeats, toolCall, evidence },
          `iteration ${n} stopped mid-run by the loop detector: ${loopKindWords(loopType ?? '')} (${repeats} repeats) at tool call ${toolCall}`,
        );
      }
      const plan = options.plan === undefined ? null : readPlan(resolve(run.cwd, options.plan));
      const claims = claimsOf(result, plan, options);
      const evidence = claims.claimed || claims.planDone ? await checkEvidence(options, run.cwd) : null;
      const facts = { iteration: n, result, changes, task, plan, evidence, now: this.clock.now() };
      const judged = judgeIteration({ ...facts, stepLoopStopped: stopVerdict?.loopType ?? null }, options);
      if (judged.lastError !== null) this.state.lastError = judged.lastError;
      const asked = judged.question !== null && options.onQuestion === 'pause';
      // a question to the user is a reason to pause, not evidence of stagnation: the breaker does not judge it
      const verdict: BreakerVerdict = asked
        ? { state: this.breaker.state, tripped: false, progress: 'unknown', readings: [], reason: null }
        : this.breaker.record(judged.observation);
      this.history.push({
        iteration: n,
        passed: result.exitCode === 0 && !result.timedOut,
        ...(verdict.progress === 'progress' ? {} : { output: tailOf(result.output) }),
      });
      const saved = saveIteration(
        runs,
        { id: run.id, dir: this.runDir, breaker: this.breaker.snapshot(), modelIndex: this.state.modelIndex },
        { n, startedAt: iterationStart, endedAt: this.clock.now(), model, ran, judged, verdict },
      );
      this.pendingWrites.push(saved.written);
      const artifactsDir = saved.artifactsDir;
      reportIteration(
        this.display,
        options,
        { runId: run.id, n, elapsedMs: this.clock.now() - startedAt, artifacts: artifactsDir },
        result,
        verdict,
      );
      const at = { runId: run.id, iteration: n, task, now: this.clock.now() };
      const spent = settleSpend(ran.spend, { ...at, display: this.display, record: this.input.recordEntry });
      if (spent !== null) return spent;
      if (judged.completed)
        return { status: 'completed', exitCode: EXIT_CODES.ok, reason: judged.completedReason };
      if (asked)
        return {
          status: 'paused',
          exitCode: EXIT_CODES.paused,
          reason: `the agent asked: ${judged.question}`,
        };
      if (!(await this.waits.afterIteration(n, judged.infrastructure))) return INTERRUPTED;
      const detector = this.input.loopDetector;
      const loop =
        task === null || detector === undefined || judged.infrastructure !== null
          ? null
          : recordTaskAttempt(
              detector,
              { runId: run.id, iteration: n, task },
              verdict,
              judged.taskDone,
              changes?.patch ?? '',
            );
      if (loop !== null && !verdict.tripped && this.breaker.state !== 'OPEN') {
        const outcome = await this.trip(loop, n);
        if (outcome !== null) return outcome;
      }
      if (verdict.tripped) {
        const outcome = await this.act(verdict.reason ?? 'stagnation', n);
        if (outcome !== null) return outcome;
      }
    }
  }

  /** Opens the breaker from outside the signals (a guard, the seed-002 detector) and acts. */
  private trip(reason: string, iteration: number): Promise<Outcome | null> {
    this.breaker.trip(reason);
    return this.act(reason, iteration);
  }

  /** Acts on an open breaker; when the run goes on, the guards need fresh evidence. */
  private async act(reason: string, iteration: number): Promise<Outcome | null> {
    const outcome = await this.actions.act(reason, iteration);
    if (outcome === null) this.history.length = 0;
    return outcome;
  }

  private currentTask(): string | null {
    const { options, run } = this.input;
    if (options.task !== undefined) this.state.lastTask = options.task;
    else if (options.plan === undefined) return null;
    else {
      const items = readPlan(resolve(run.cwd, options.plan));
      this.state.lastTask = items === null ? null : currentTask(items, this.state.skipped);
    }
    return this.state.lastTask;
  }

  private promptFor(): string {
    let prompt = this.input.prompt;
    if (this.state.failureContext !== null) {
      prompt += `\n\n## Previous attempts stalled (loopguard)\n${this.state.failureContext}\nLast error: ${this.state.lastError ?? '(none)'}\nTry a different approach.\n`;
    }
    if (this.nudges.length > 0)
      prompt += `\n\n## Loops seen in the last iteration (loopguard)\n${this.nudges.join('\n\n')}\n`;
    return prompt;
  }

  private finish(outcome: Outcome): ExitCode {
    const { run, runs } = this.input;
    runs.updateRun(run.id, {
      status: outcome.status,
      reason: outcome.reason,
      exitCode: outcome.exitCode,
      breaker: this.breaker.snapshot(),
      modelIndex: this.state.modelIndex,
    });
    const hint = resumeHint(run.id, outcome.status);
    const { status, exitCode, reason } = outcome;
    this.display.event(
      'run_finished',
      { run: run.id, status, exitCode, reason, breaker: this.breaker.state, opens: this.breaker.opens },
      // in words, as `runs` and `status` say it (`limit reached`); `--json` keeps the stored name
      `run ${run.id} ${runStatusWords(status)}: ${runReasonWords(reason)}${hint}`,
    );
    return outcome.exitCode;
  }

  private warn(message: string): void {
    this.display.event('warning', { run: this.input.run.id, message }, `warning: ${message}`);
  }
}
