import { createHash } from 'node:crypto';
import { type BreakerVerdict, errorSignature, type IterationObservation } from '@loopguard/core/breaker';
import type { AgentResult } from './agentProcess.js';
import { completionClaimed, infrastructureOf, structuredResultOf } from './agentResult.js';
import { permissionDenialsOf, questionOf } from './agentSignals.js';
import type { EvidenceResult } from './evidence.js';
import type { PlanItem } from './plan.js';
import type { RunOptions } from './runOptions.js';

/** What an iteration claimed, before any evidence is checked. */
export interface IterationClaims {
  /** The agent printed the completion promise. */
  claimed: boolean;
  /** Every item of `--plan` is checked. */
  planDone: boolean;
}

/** The facts of one finished iteration, gathered by the session. */
export interface IterationFacts {
  /** The iteration's number, 1-based. */
  iteration: number;
  /** How the agent ran. */
  result: AgentResult;
  /** The files it changed; `null` outside git. */
  changes: { files: string[] } | null;
  /** The task in progress, if any. */
  task: string | null;
  /** The plan after the iteration; `null` without `--plan` or when the file is missing. */
  plan: PlanItem[] | null;
  /** The evidence, checked only when completion was claimed (else `null`). */
  evidence: EvidenceResult | null;
  /** The loop type when the step-level detector stopped the iteration. */
  stepLoopStopped: string | null;
  /** Now, epoch ms (reset times are relative to it). */
  now: number;
}

/** What {@link judgeIteration} decided: the breaker's observation and the artifacts' records. */
export interface IterationJudgement {
  /** What the breaker records. */
  observation: IterationObservation;
  /** The plan item of `task` got checked. */
  taskDone: boolean;
  /** Completion claimed (or the plan done) and the evidence holds. */
  completed: boolean;
  /** Why the run completes, when it does. */
  completedReason: string;
  /** The question the iteration ended with, asking the user for input; else `null`. */
  question: string | null;
  /** The first error's normalised signature, when the output reports one. */
  lastError: string | null;
  /** Infrastructure trouble (not stagnation) and the reset time the agent stated. */
  infrastructure: { kind: string; resetAt: number | null } | null;
  /** `errors.json`. */
  errors: Record<string, unknown>;
  /** `metrics.json` (the session adds the files changed and the model). */
  metrics: Record<string, unknown>;
  /** `completion_signals.json`. */
  completion: Record<string, unknown>;
}

type JudgeOptions = Pick<RunOptions, 'completionPromise' | 'evidenceCommand' | 'requireFile'>;

/** Whether the agent claimed completion, or the plan is done; these decide whether evidence is checked. */
export function claimsOf(
  result: AgentResult,
  plan: PlanItem[] | null,
  options: JudgeOptions,
): IterationClaims {
  const structured = structuredResultOf(result.stdout);
  return {
    claimed: completionClaimed(result.output, structured, options.completionPromise),
    planDone: plan !== null && plan.length > 0 && plan.every((item) => item.done),
  };
}

/**
 * Judges one finished iteration without I/O: infrastructure trouble, the error signature, the
 * completion claim against its evidence, and the observation the breaker records.
 * @example const judged = judgeIteration(facts, options); breaker.record(judged.observation);
 */
export function judgeIteration(facts: IterationFacts, options: JudgeOptions): IterationJudgement {
  const { result, plan, evidence, task } = facts;
  const structured = structuredResultOf(result.stdout);
  const infra = infrastructureOf(result.output, structured, facts.now);
  const signature = errorSignature(result.output);
  const { claimed, planDone } = claimsOf(result, plan, options);
  const evidenceProblems = claimed || planDone ? (evidence?.problems ?? []) : null;
  const taskDone = task !== null && plan?.some((item) => item.text === task && item.done) === true;
  const verified = (claimed || planDone) && evidenceProblems !== null && evidenceProblems.length === 0;
  return {
    observation: {
      iteration: facts.iteration,
      filesChanged: facts.changes === null ? null : facts.changes.files.length,
      output: result.output,
      infrastructure: infra.kind,
      task: task === null ? null : { id: task, done: taskDone },
      completionClaimed: claimed,
      evidenceProblems,
      stepLoopStopped: facts.stepLoopStopped,
      permissionDenials: permissionDenialsOf(result.output, structured),
      changedFiles: facts.changes === null ? null : facts.changes.files,
    },
    question: questionOf(result.output, structured),
    taskDone,
    completed: verified,
    completedReason: claimed
      ? 'completion claimed with evidence'
      : 'every plan item is checked, with evidence',
    lastError: signature.kind === 'failure' ? signature.signature : null,
    infrastructure: infra.kind === null ? null : { kind: infra.kind, resetAt: infra.resetAt },
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
      evidenceExitCode: evidence?.exitCode ?? null,
      requiredFiles: options.requireFile,
      evidenceProblems,
      verified,
    },
  };
}

/** One iteration as an attempt at its task for the seed-002 detector. */
export interface IterationAttempt {
  /** `done` when the plan item got checked, `blocked` on a repeated error, else `in_progress`. */
  status: 'done' | 'blocked' | 'in_progress';
  /** The repeated error, when blocked. */
  blockers: string[];
  /** The completed work: the patch's hash (the same patch again is no progress). */
  work: string[];
}

/**
 * Maps a judged iteration to an attempt at its task (pure).
 * @example attemptOf(verdict, false, patch).status; // 'in_progress'
 */
export function attemptOf(verdict: BreakerVerdict, taskDone: boolean, patch: string): IterationAttempt {
  const sameError = verdict.readings.find((r) => r.signal === 'same_error' && r.status === 'stalled');
  return {
    status: taskDone ? 'done' : sameError !== undefined ? 'blocked' : 'in_progress',
    blockers: sameError === undefined ? [] : [sameError.detail],
    work: patch === '' ? [] : [`patch:${createHash('sha1').update(patch).digest('hex').slice(0, 12)}`],
  };
}
