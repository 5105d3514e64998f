import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoopDetector } from '@loopguard/core';
import { type BreakerVerdict, errorSignature, StagnationBreaker } from '@loopguard/core/breaker';
import { type GuardIteration, GuardSet } from '@loopguard/core/guards';
import { infrastructureWaitMs } from '@loopguard/core/internal';
import type { RunRecord, RunStatus, SqliteRunStore } from '@loopguard/sqlite';
import { execa } from 'execa';
import type { CliIo } from '../cliIo.js';
import { EXIT_CODES, type ExitCode } from '../exitCodes.js';
import { type AgentResult, runAgent } from './agentProcess.js';
import { completionClaimed, infrastructureOf, structuredResultOf, tailOf } from './agentResult.js';
import { iterationDirectory, runDirectory, writeIterationArtifacts } from './artifacts.js';
import { formatDuration } from './duration.js';
import { GitWorkspace } from './GitWorkspace.js';
import { notifyDesktop, postWebhook } from './notify.js';
import { currentTask, readPlan } from './plan.js';
import { RunDisplay } from './RunDisplay.js';
import type { RunOptions } from './runOptions.js';
import { StepStreamWatcher } from './StepStreamWatcher.js';

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
}

type Outcome = { status: RunStatus; exitCode: ExitCode; reason: string };

/**
 * One guarded run of an agent command: runs it once per iteration, judges each iteration with the
 * {@link StagnationBreaker} and the {@link GuardSet}, writes the artifacts and the state, and acts
 * when the breaker opens (pause, alert, abort, escalate). Resuming a run is constructing a session
 * on its stored row.
 */
export class RunSession {
  private readonly io: CliIo;
  private readonly run: RunRecord;
  private readonly runs: SqliteRunStore;
  private readonly options: RunOptions;
  private readonly display: RunDisplay;
  private readonly breaker: StagnationBreaker;
  private readonly guards: GuardSet;
  private readonly runDir: string;
  private readonly history: GuardIteration[] = [];
  private readonly callTimes: number[] = [];
  private readonly skipped = new Set<string>();
  private readonly pendingWrites: Array<Promise<void>> = [];
  private modelIndex: number;
  private failureContext: string | null = null;
  private nudges: string[] = [];
  private lastError: string | null = null;
  private lastTask: string | null = null;

  constructor(private readonly input: RunSessionInput) {
    this.io = input.io;
    this.run = input.run;
    this.runs = input.runs;
    this.options = input.options;
    this.display = new RunDisplay(input.io, input.options.json);
    this.runDir = runDirectory(input.run.cwd, input.run.id);
    this.modelIndex = input.run.modelIndex;
    const resuming = input.run.iteration > 0 || input.run.breaker !== null;
    this.breaker = new StagnationBreaker({
      runId: input.run.id,
      stagnationThreshold: input.options.stagnationThreshold,
      sameErrorThreshold: input.options.sameErrorThreshold,
      taskThreshold: input.options.taskThreshold,
      cooldownMs: input.options.cooldown,
      autoReset: input.options.autoReset,
      ...(resuming ? { snapshot: input.run.breaker } : {}),
    });
    this.breaker.on('breakerStateChanged', (t) => {
      this.runs.appendTransition(t);
      this.display.event(
        'breaker_state_changed',
        { ...t },
        `breaker ${this.display.state(t.from)} -> ${this.display.state(t.to)}: ${t.reason}`,
      );
    });
    this.guards = new GuardSet({
      maxIterations: input.options.maxIterations,
      maxRuntimeMinutes: input.options.maxRuntime / 60_000,
      consecutiveFailureLimit: input.options.maxConsecutiveFailures,
    });
  }

  /** Runs iterations until the run completes, pauses, aborts, spends its budget or is interrupted. */
  async execute(): Promise<ExitCode> {
    const { run, options } = this;
    if (this.breaker.restoreNotice !== null) {
      this.warn(`run ${run.id}: ${this.breaker.restoreNotice}`);
    }
    this.runs.updateRun(run.id, { status: 'running', reason: null, breakerState: this.breaker.state });
    this.restoreHistory();
    const workspace = await GitWorkspace.open(run.cwd, `${this.runDir}/index`);
    if (workspace === null) this.warn('not a git repository: the no-file-changes signal is unavailable');
    const startedAt = Date.now();
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
    let tree = workspace === null ? null : await workspace.snapshot();
    let consecutiveInfrastructure = 0;
    let iteration = run.iteration;
    const outcome = await (async (): Promise<Outcome> => {
      for (;;) {
        if (this.input.signal.aborted) return this.interrupted();
        const n = iteration + 1;
        const guard = this.guards.check({ iteration: n, history: this.history, startedAt });
        if (!guard.canContinue) {
          if (guard.blockedBy === 'max_iterations' || guard.blockedBy === 'max_runtime') {
            return { status: 'budget_spent', exitCode: EXIT_CODES.budgetSpent, reason: guard.message };
          }
          this.breaker.trip(`guard ${guard.blockedBy}: ${guard.message}`);
          const acted = await this.act(`guard ${guard.blockedBy}: ${guard.message}`, iteration);
          if (acted !== null) return acted;
        }
        const waited = await this.waitBeforeIteration();
        if (!waited) return this.interrupted();

        const task = this.currentTask();
        const model = options.modelProgression[this.modelIndex] ?? null;
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
        const iterationStart = Date.now();
        this.callTimes.push(iterationStart);
        const watcher =
          options.agentStream === undefined ? null : new StepStreamWatcher(options.agentStream, run.id);
        const prompt = this.promptFor();
        this.nudges = [];
        const result = await runAgent(command, {
          cwd: run.cwd,
          input: prompt,
          timeoutMs: options.iterationTimeout,
          signal: this.input.signal,
          ...(watcher === null ? {} : { stop: watcher.stopSignal }),
          onStdout: (chunk) => {
            watcher?.push(chunk);
            this.display.agentStdout(chunk);
          },
          onStderr: (chunk) => this.display.agentStderr(chunk),
        });
        if (result.interrupted) return this.interrupted();
        iteration = n;
        const afterTree = workspace === null ? null : await workspace.snapshot();
        const changes =
          workspace === null || tree === null || afterTree === null
            ? null
            : await workspace.changes(tree, afterTree);
        tree = afterTree;
        const stopVerdict = watcher?.stopVerdict ?? null;
        if (watcher !== null)
          this.nudges = [...watcher.nudges, ...(stopVerdict?.message ? [stopVerdict.message] : [])];
        if (stopVerdict !== null) {
          this.display.event(
            'step_loop_stopped',
            {
              run: run.id,
              iteration: n,
              loopType: stopVerdict.loopType,
              repeats: stopVerdict.repeats,
              evidence: stopVerdict.evidence,
            },
            `iteration ${n} stopped mid-run by the step-level detector: ${stopVerdict.loopType} (${stopVerdict.repeats} repeats)`,
          );
        }
        const verdict = await this.judge(n, result, changes, task, stopVerdict?.loopType ?? null);
        const artifactsDir = iterationDirectory(this.runDir, n);
        this.pendingWrites.push(
          writeIterationArtifacts(artifactsDir, {
            patch: changes?.patch ?? '',
            errors: verdict.errors,
            metrics: { ...verdict.metrics, filesChanged: changes?.files.length ?? null, model },
            completion: verdict.completion,
            output: result.output,
            ...(stopVerdict === null ? {} : { stepLoop: stopVerdict }),
          }),
        );
        this.runs.recordIteration({
          runId: run.id,
          iteration: n,
          startedAt: iterationStart,
          endedAt: Date.now(),
          exitCode: result.exitCode,
          progress: stopVerdict === null ? verdict.breaker.progress : 'stopped',
          signals: verdict.breaker.readings,
        });
        this.runs.updateRun(run.id, {
          iteration: n,
          breaker: this.breaker.snapshot(),
          modelIndex: this.modelIndex,
        });
        this.reportIteration(n, startedAt, result, verdict.breaker, artifactsDir);
        if (verdict.completed) {
          return { status: 'completed', exitCode: EXIT_CODES.ok, reason: verdict.completedReason };
        }
        if (verdict.infrastructure !== null) {
          consecutiveInfrastructure += 1;
          const waitMs = infrastructureWaitMs({
            consecutive: consecutiveInfrastructure,
            now: Date.now(),
            resetAt: verdict.resetAt,
            baseMs: options.backoff,
          });
          this.display.event(
            'infrastructure_wait',
            { run: run.id, iteration: n, kind: verdict.infrastructure, waitMs, resetAt: verdict.resetAt },
            `${verdict.infrastructure.replace('_', ' ')} (not counted as stagnation): waiting ${formatDuration(waitMs)} before retrying`,
          );
          if (
            !(await this.pause(
              waitMs,
              (left) => `${verdict.infrastructure} back-off: ${formatDuration(left)} left`,
            ))
          )
            return this.interrupted();
        } else {
          consecutiveInfrastructure = 0;
        }
        const loop = task === null ? null : this.recordAttempt(n, task, verdict, changes?.patch ?? '');
        if (loop !== null && !verdict.breaker.tripped && this.breaker.state !== 'OPEN') {
          this.breaker.trip(loop);
          const acted = await this.act(loop, n);
          if (acted !== null) return acted;
        }
        if (verdict.breaker.tripped) {
          const acted = await this.act(verdict.breaker.reason ?? 'stagnation', n);
          if (acted !== null) return acted;
        }
      }
    })();
    for (const failed of (await Promise.allSettled(this.pendingWrites)).filter(
      (r) => r.status === 'rejected',
    )) {
      this.warn(`an iteration artifact could not be written: ${(failed.reason as Error).message}`);
    }
    return this.finish(outcome);
  }

  /** Judges one finished iteration: infrastructure, completion and evidence, the breaker. */
  private async judge(
    n: number,
    result: AgentResult,
    changes: { files: string[] } | null,
    task: string | null,
    stepLoopStopped: string | null,
  ) {
    const { options } = this;
    const structured = structuredResultOf(result.stdout);
    const infra = infrastructureOf(result.output, structured, Date.now());
    const signature = errorSignature(result.output);
    if (signature.kind === 'failure') this.lastError = signature.signature;
    const claimed = completionClaimed(result.output, structured, options.completionPromise);
    const plan = options.plan === undefined ? null : readPlan(resolve(this.run.cwd, options.plan));
    const planDone = plan !== null && plan.length > 0 && plan.every((item) => item.done);
    let evidenceProblems: string[] | null = null;
    let evidenceExitCode: number | null = null;
    if (claimed || planDone) {
      evidenceProblems = [];
      if (options.evidenceCommand !== undefined) {
        const evidence = await execa(options.evidenceCommand, {
          shell: true,
          cwd: this.run.cwd,
          reject: false,
          timeout: options.iterationTimeout,
          all: true,
        });
        evidenceExitCode = evidence.exitCode ?? null;
        if (evidence.exitCode !== 0)
          evidenceProblems.push(
            `evidence command "${options.evidenceCommand}" exited ${evidence.exitCode ?? evidence.signal}`,
          );
      }
      for (const file of options.requireFile) {
        if (!existsSync(resolve(this.run.cwd, file)))
          evidenceProblems.push(`required file ${file} is missing`);
      }
    }
    const taskDone =
      task !== null && plan !== null ? plan.some((item) => item.text === task && item.done) : false;
    const breaker = this.breaker.record({
      iteration: n,
      filesChanged: changes === null ? null : changes.files.length,
      output: result.output,
      infrastructure: infra.kind,
      task: task === null ? null : { id: task, done: taskDone },
      completionClaimed: claimed,
      evidenceProblems,
      stepLoopStopped,
    });
    const progressed = breaker.progress === 'progress';
    this.history.push({
      iteration: n,
      passed: result.exitCode === 0 && !result.timedOut,
      ...(progressed ? {} : { output: tailOf(result.output) }),
    });
    const verified = (claimed || planDone) && evidenceProblems !== null && evidenceProblems.length === 0;
    return {
      breaker,
      taskDone,
      infrastructure: infra.kind,
      resetAt: infra.resetAt,
      completed: verified,
      completedReason: claimed
        ? 'completion claimed with evidence'
        : 'every plan item is checked, with evidence',
      errors: {
        kind: signature.kind,
        signature: signature.signature,
        firstErrorLine: signature.firstErrorLine,
        errorType: signature.errorType,
        location: signature.location,
        failingTests: signature.failingTests,
        infrastructure: infra.kind,
        infrastructureResetAt: infra.resetAt,
      },
      metrics: {
        durationMs: Math.round(result.durationMs),
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        outputBytes: result.outputBytes,
        tokens: structured?.tokens ?? null,
        costUsd: structured?.costUsd ?? null,
        numTurns: structured?.numTurns ?? null,
      },
      completion: {
        promise: options.completionPromise,
        claimed,
        planComplete: planDone,
        evidenceCommand: options.evidenceCommand ?? null,
        evidenceExitCode,
        requiredFiles: options.requireFile,
        evidenceProblems,
        verified,
      },
    };
  }

  /**
   * Records the iteration as an attempt at its task in the seed-002 detector and returns the
   * breaker reason when the detector sees a loop (revisited finished task, blocked spin, no progress).
   */
  private recordAttempt(
    n: number,
    task: string,
    verdict: { breaker: BreakerVerdict; infrastructure: string | null; taskDone: boolean },
    patch: string,
  ): string | null {
    const detector = this.input.loopDetector;
    if (detector === undefined || verdict.infrastructure !== null) return null;
    const taskKey = `${this.run.id}:${task}`;
    const sameError = verdict.breaker.readings.find(
      (r) => r.signal === 'same_error' && r.status === 'stalled',
    );
    const status = verdict.taskDone ? 'done' : sameError !== undefined ? 'blocked' : 'in_progress';
    const blockers = sameError === undefined ? [] : [sameError.detail];
    // the completed work is the change itself: the same patch again is no progress, another one is
    const work = patch === '' ? [] : [`patch:${createHash('sha1').update(patch).digest('hex').slice(0, 12)}`];
    detector.recordAttempt(taskKey, status, blockers, work, `${this.run.id}#${n}`);
    const loop = detector.detectLoop(taskKey);
    if (!loop.isLooping) return null;
    return `loop_detector: ${loop.loopType} on task ${task} (${loop.attemptCount} attempts, recommendation ${loop.recommendation})`;
  }

  private reportIteration(
    n: number,
    startedAt: number,
    result: AgentResult,
    verdict: BreakerVerdict,
    artifacts: string,
  ): void {
    const stalled = verdict.readings.filter((r) => r.status === 'stalled');
    const signal =
      stalled.length > 0
        ? stalled.map((r) => `${r.signal} ${r.streak}/${r.threshold}`).join(', ')
        : verdict.progress;
    const exit = result.timedOut
      ? `killed at the ${formatDuration(this.options.iterationTimeout)} timeout`
      : `exit ${result.exitCode ?? result.signal}`;
    const line = `iteration ${n}/${this.options.maxIterations} · ${formatDuration(Date.now() - startedAt)} of ${formatDuration(this.options.maxRuntime)} · breaker ${this.display.state(verdict.state)} · ${exit} · ${signal}`;
    this.display.event(
      'iteration_finished',
      {
        run: this.run.id,
        iteration: n,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        durationMs: Math.round(result.durationMs),
        progress: verdict.progress,
        breaker: verdict.state,
        readings: verdict.readings,
        artifacts,
      },
      line,
    );
    this.display.live(line);
  }

  /** Acts on an open breaker; `null` means the run goes on, and the guards then need fresh evidence. */
  private async act(reason: string, iteration: number): Promise<Outcome | null> {
    const outcome = await this.actOn(reason, iteration);
    if (outcome === null) this.history.length = 0;
    return outcome;
  }

  private async actOn(reason: string, iteration: number): Promise<Outcome | null> {
    const action = this.options.onStagnation;
    const alert = {
      run: this.run.id,
      iteration,
      reason,
      lastError: this.lastError,
      task: this.lastTask,
      action,
    };
    this.display.event('stagnation_detected', alert, `[STAGNATION DETECTED] ${reason}`);
    if (this.options.webhook !== undefined) {
      const problem = await postWebhook(this.options.webhook, alert);
      this.display.event(
        'webhook_posted',
        { run: this.run.id, url: this.options.webhook, delivered: problem === null, problem },
        problem === null
          ? `webhook posted to ${this.options.webhook}`
          : `webhook to ${this.options.webhook} failed: ${problem}`,
      );
    }
    if (action === 'alert') {
      await notifyDesktop('loopguard: stagnation detected', reason, this.io.env);
      return null;
    }
    if (action === 'abort') return this.abort(reason);
    if (action === 'escalate') {
      const next = this.options.modelProgression[this.modelIndex + 1];
      if (next !== undefined) {
        this.modelIndex += 1;
        this.failureContext = reason;
        this.breaker.reset(`escalated to model ${next}`);
        this.display.event('escalated', { run: this.run.id, model: next }, `escalating to model ${next}`);
        return null;
      }
      this.display.event(
        'escalation_exhausted',
        { run: this.run.id },
        'the last model also stalled: pausing',
      );
    }
    return this.pauseForPerson(reason);
  }

  private abort(reason: string): Outcome {
    return {
      status: 'aborted',
      exitCode: EXIT_CODES.aborted,
      reason: `task ${this.lastTask ?? '(none)'} blocked: ${reason}`,
    };
  }

  /** The seed's menu on a terminal; without one the run saves its state and exits 3. */
  private async pauseForPerson(reason: string): Promise<Outcome | null> {
    if (!this.io.isTTY || process.stdin.isTTY !== true || this.options.json) {
      return { status: 'paused', exitCode: EXIT_CODES.paused, reason };
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      for (;;) {
        this.io.stderr(
          `\n[STAGNATION DETECTED] ${reason}\nTask: ${this.lastTask ?? '(none)'}\nLast error: ${this.lastError ?? '(none)'}\n\nOptions:\n  [c] Continue (reset counter)\n  [s] Skip task (mark as blocked)\n  [a] Abort run\n  [r] Retry with different model\n  [h] Get help (show context)\n\n`,
        );
        const choice = (await rl.question('Choice: ')).trim().toLowerCase();
        if (choice === 'c') {
          this.breaker.reset('continued by a person');
          return null;
        }
        if (choice === 'a') return this.abort(reason);
        if (choice === 's') {
          if (this.lastTask === null || this.options.plan === undefined) return this.abort(reason);
          this.skipped.add(this.lastTask);
          this.breaker.reset(`task ${this.lastTask} skipped (blocked)`);
          return null;
        }
        if (choice === 'r') {
          const next = this.options.modelProgression[this.modelIndex + 1];
          if (next === undefined) {
            this.io.stderr('No other model in --model-progression.\n');
            continue;
          }
          this.modelIndex += 1;
          this.failureContext = reason;
          this.breaker.reset(`retrying with model ${next}`);
          return null;
        }
        if (choice === 'h') {
          this.io.stderr(
            `Run ${this.run.id}, artifacts in ${this.runDir}/iterations; state in .loopguard/state.db.\nLater: loopguard resume ${this.run.id}, loopguard reset ${this.run.id}.\n`,
          );
        }
      }
    } finally {
      rl.close();
    }
  }

  /** Waits for an `OPEN` breaker's cooldown and for `--max-calls-per-hour`; `false` when interrupted. */
  private async waitBeforeIteration(): Promise<boolean> {
    if (this.options.onStagnation !== 'alert' && this.breaker.state === 'OPEN') {
      const waitMs = this.breaker.cooldownRemainingMs();
      this.display.event(
        'cooldown_wait',
        { run: this.run.id, waitMs },
        `breaker OPEN: trial iterations in ${formatDuration(waitMs)} (loopguard reset ${this.run.id} closes it now)`,
      );
      if (
        !(await this.pause(
          waitMs,
          (left) => `breaker ${this.display.state('OPEN')}: cooldown ${formatDuration(left)} left`,
        ))
      )
        return false;
    }
    const limit = this.options.maxCallsPerHour;
    if (limit !== undefined) {
      const hourAgo = Date.now() - 3_600_000;
      while (this.callTimes.length > 0 && (this.callTimes[0] ?? 0) <= hourAgo) this.callTimes.shift();
      if (this.callTimes.length >= limit) {
        const waitMs = (this.callTimes[0] ?? 0) + 3_600_000 - Date.now();
        this.display.event(
          'call_limit_wait',
          { run: this.run.id, waitMs, limit },
          `${limit} calls in the last hour: waiting ${formatDuration(waitMs)}`,
        );
        if (!(await this.pause(waitMs, (left) => `call limit: ${formatDuration(left)} left`))) return false;
      }
    }
    return true;
  }

  /** Sleeps `ms`, redrawing the live line each second; `false` when interrupted. */
  private async pause(ms: number, live: (left: number) => string): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (this.input.signal.aborted) return false;
      this.display.live(live(end - Date.now()));
      try {
        await sleep(Math.min(1000, end - Date.now()), undefined, { signal: this.input.signal });
      } catch {
        return false;
      }
    }
    return !this.input.signal.aborted;
  }

  private currentTask(): string | null {
    if (this.options.task !== undefined) {
      this.lastTask = this.options.task;
      return this.lastTask;
    }
    if (this.options.plan === undefined) return null;
    const items = readPlan(resolve(this.run.cwd, this.options.plan));
    this.lastTask = items === null ? null : currentTask(items, this.skipped);
    return this.lastTask;
  }

  private promptFor(): string {
    let prompt = this.input.prompt;
    if (this.failureContext !== null) {
      prompt += `\n\n## Previous attempts stalled (loopguard)\n${this.failureContext}\nLast error: ${this.lastError ?? '(none)'}\nTry a different approach.\n`;
    }
    if (this.nudges.length > 0)
      prompt += `\n\n## Loops seen in the last iteration (loopguard)\n${this.nudges.join('\n\n')}\n`;
    return prompt;
  }

  private restoreHistory(): void {
    for (const row of this.runs.iterations(this.run.id)) {
      this.history.push({ iteration: row.iteration, passed: row.exitCode === 0 });
    }
  }

  private interrupted(): Outcome {
    return { status: 'interrupted', exitCode: EXIT_CODES.interrupted, reason: 'interrupted by the user' };
  }

  private finish(outcome: Outcome): ExitCode {
    this.runs.updateRun(this.run.id, {
      status: outcome.status,
      reason: outcome.reason,
      exitCode: outcome.exitCode,
      breaker: this.breaker.snapshot(),
      modelIndex: this.modelIndex,
    });
    const hint =
      outcome.status === 'paused' || outcome.status === 'interrupted' || outcome.status === 'aborted'
        ? ` (loopguard resume ${this.run.id} continues it)`
        : '';
    this.display.event(
      'run_finished',
      {
        run: this.run.id,
        status: outcome.status,
        exitCode: outcome.exitCode,
        reason: outcome.reason,
        breaker: this.breaker.state,
        opens: this.breaker.opens,
      },
      `run ${this.run.id} ${outcome.status}: ${outcome.reason}${hint}`,
    );
    return outcome.exitCode;
  }

  private warn(message: string): void {
    this.display.event('warning', { run: this.run.id, message }, `warning: ${message}`);
  }
}
