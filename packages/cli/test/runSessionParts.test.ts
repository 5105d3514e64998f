import { ManualClock } from '@loopguard/core';
import { StagnationBreaker } from '@loopguard/core/breaker';
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../src/run/agentProcess.js';
import { attemptOf, judgeIteration } from '../src/run/judgeIteration.js';
import { RunDisplay } from '../src/run/RunDisplay.js';
import { resolveRunOptions } from '../src/run/runOptions.js';
import type { SessionState } from '../src/run/sessionState.js';
import { StagnationActions } from '../src/run/stagnationActions.js';
import { endWith } from '../src/run/startRun.js';
import { RunWaits } from '../src/run/waits.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

const result = (output: string, exitCode = 0): AgentResult => ({
  exitCode,
  signal: null,
  timedOut: false,
  interrupted: false,
  stopped: false,
  output,
  outputBytes: output.length,
  stdout: output,
  durationMs: 12.4,
});
const facts = {
  iteration: 2,
  changes: { files: ['a.ts'] },
  task: null,
  plan: null,
  evidence: null,
  stepLoopStopped: null,
  now: 0,
};

describe('judgeIteration (pure)', () => {
  const options = resolveRunOptions({}, {}, null);

  it('a claim without evidence configured completes; the observation carries the facts', () => {
    const judged = judgeIteration(
      {
        ...facts,
        result: result('done <promise>COMPLETE</promise>\n'),
        evidence: { problems: [], exitCode: null },
      },
      options,
    );
    expect(judged.completed).toBe(true);
    expect(judged.observation).toMatchObject({
      iteration: 2,
      filesChanged: 1,
      completionClaimed: true,
      evidenceProblems: [],
    });
  });

  it('a claim whose evidence fails is not completion, and says why', () => {
    const evidence = { problems: ['evidence command "npm test" exited 1'], exitCode: 1 };
    const judged = judgeIteration(
      { ...facts, result: result('<promise>COMPLETE</promise>\n'), evidence },
      options,
    );
    expect(judged.completed).toBe(false);
    expect(judged.completion).toMatchObject({ claimed: true, evidenceExitCode: 1, verified: false });
    expect(judged.observation.evidenceProblems).toEqual(evidence.problems);
  });

  it('infrastructure trouble in the last lines is reported with its kind, not as an error to repeat', () => {
    const judged = judgeIteration({ ...facts, result: result('Error: 429 Too Many Requests\n', 1) }, options);
    expect(judged.infrastructure?.kind).toBe('rate_limit');
    expect(judged.observation.infrastructure).toBe('rate_limit');
  });

  it('a checked plan item of the current task is done', () => {
    const plan = [
      { text: 'T1', done: true },
      { text: 'T2', done: false },
    ];
    const judged = judgeIteration({ ...facts, task: 'T1', plan, result: result('ok\n') }, options);
    expect(judged.taskDone).toBe(true);
    expect(judged.completed).toBe(false);
  });

  it('maps a verdict to an attempt: blocked on a repeated error, done when checked, the patch hash as work', () => {
    const stalled = {
      signal: 'same_error' as const,
      status: 'stalled' as const,
      streak: 2,
      threshold: 5,
      detail: 'error: X',
    };
    const verdict = {
      state: 'CLOSED' as const,
      tripped: false,
      progress: 'stalled' as const,
      readings: [stalled],
      reason: null,
    };
    expect(attemptOf(verdict, false, '')).toEqual({ status: 'blocked', blockers: ['error: X'], work: [] });
    expect(attemptOf({ ...verdict, readings: [] }, true, 'diff').status).toBe('done');
    expect(attemptOf({ ...verdict, readings: [] }, false, 'diff').work[0]).toMatch(/^patch:[0-9a-f]{12}$/);
  });
});

function actionsWith(answers: string[], overrides: Record<string, unknown> = {}) {
  const questions: string[] = [];
  const io = bufferedIo({
    isTTY: true,
    ask: async (q) => {
      questions.push(q);
      return answers.shift() ?? 'a';
    },
  });
  const options = resolveRunOptions({}, { modelProgression: 'haiku,sonnet', ...overrides }, null);
  const clock = new ManualClock(1000);
  const breaker = new StagnationBreaker({ runId: 'r1', clock });
  const state: SessionState = {
    modelIndex: 0,
    failureContext: null,
    lastError: 'E1',
    lastTask: 'T1',
    skipped: new Set(),
  };
  const display = new RunDisplay(io, false, clock);
  const actions = new StagnationActions({ io, display, options, breaker, state, runId: 'r1', runDir: '/x' });
  return { actions, io, breaker, state, questions };
}

describe('StagnationActions: the pause menu asks through the CLI I/O', () => {
  it('[c] continues with a reset breaker', async () => {
    const { actions, breaker, questions, io } = actionsWith(['c']);
    breaker.trip('stuck');
    expect(await actions.act('stuck', 3)).toBeNull();
    expect(breaker.state).toBe('CLOSED');
    expect(questions).toEqual(['Choice: ']);
    expect(io.err()).toContain('[c] Continue (reset counter)');
  });

  it('[h] shows the context and asks again; [r] moves to the next model; [a] aborts', async () => {
    const { actions, state, questions, io } = actionsWith(['h', 'r']);
    expect(await actions.act('stuck', 3)).toBeNull();
    expect(questions).toHaveLength(2);
    expect(io.err()).toContain('loopguard resume r1');
    expect(state).toMatchObject({ modelIndex: 1, failureContext: 'stuck' });
    const aborted = await actionsWith(['a']).actions.act('stuck', 3);
    expect(aborted).toMatchObject({ status: 'aborted', exitCode: 4, reason: 'task T1 blocked: stuck' });
    // qa64: a run without a task blocks none: its reason is the breaker's alone, never "task (none)"
    const { actions: noTask, state: noTaskState } = actionsWith(['a']);
    noTaskState.lastTask = null;
    expect(await noTask.act('stuck', 3)).toMatchObject({ status: 'aborted', exitCode: 4, reason: 'stuck' });
  });

  it('[s] with a plan skips the task; without a way to ask, the run pauses (exit 3)', async () => {
    const { actions, state } = actionsWith(['s'], { plan: 'plan.md' });
    expect(await actions.act('stuck', 3)).toBeNull();
    expect([...state.skipped]).toEqual(['T1']);
    const io = bufferedIo({ isTTY: true });
    const clock = new ManualClock(0);
    const silent = new StagnationActions({
      io,
      display: new RunDisplay(io, false, clock),
      options: resolveRunOptions({}, {}, null),
      breaker: new StagnationBreaker({ runId: 'r1', clock }),
      state: { modelIndex: 0, failureContext: null, lastError: null, lastTask: null, skipped: new Set() },
      runId: 'r1',
      runDir: '/x',
    });
    expect(await silent.act('stuck', 1)).toMatchObject({ status: 'paused', exitCode: 3 });
  });
});

describe('RunWaits (injected clock and sleep)', () => {
  function waits(flags: Record<string, unknown>) {
    const clock = new ManualClock(0);
    const slept: number[] = [];
    const io = bufferedIo();
    const w = new RunWaits({
      runId: 'r1',
      options: resolveRunOptions({}, flags, null),
      display: new RunDisplay(io, true, clock),
      signal: new AbortController().signal,
      clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock.advance(ms);
      },
    });
    return { w, clock, slept, io };
  }

  it('waits out an OPEN breaker cooldown in steps of at most a second', async () => {
    const { w, clock, slept, io } = waits({ cooldown: '2500ms' });
    const breaker = new StagnationBreaker({ runId: 'r1', clock, cooldownMs: 2500 });
    breaker.trip('stuck');
    expect(await w.beforeIteration(breaker)).toBe(true);
    expect(slept).toEqual([1000, 1000, 500]);
    expect(breaker.state).toBe('HALF_OPEN');
    expect(io.out()).toContain('"event":"cooldown_wait"');
  });

  it('--max-calls-per-hour waits until the oldest call is an hour old', async () => {
    const { w, clock, slept } = waits({ maxCallsPerHour: 2 });
    const breaker = new StagnationBreaker({ runId: 'r1', clock });
    w.countCall(0);
    clock.advance(1000);
    w.countCall(1000);
    expect(await w.beforeIteration(breaker)).toBe(true);
    expect(slept.reduce((a, b) => a + b, 0)).toBe(3_600_000 - 1000);
  });

  it('backs off after infrastructure trouble, doubling, and forgets the streak after a good iteration', async () => {
    const { w, slept } = waits({ backoff: '2s' });
    await w.afterIteration(1, { kind: 'rate_limit', resetAt: null });
    const first = slept.reduce((a, b) => a + b, 0);
    slept.length = 0;
    await w.afterIteration(2, { kind: 'rate_limit', resetAt: null });
    expect(slept.reduce((a, b) => a + b, 0)).toBe(first * 2);
    await w.afterIteration(3, null);
    slept.length = 0;
    await w.afterIteration(4, { kind: 'rate_limit', resetAt: null });
    expect(slept.reduce((a, b) => a + b, 0)).toBe(first);
  });
});

describe("endWith: the run's last line", () => {
  it('names how the run ended in words, with its exit code', async () => {
    await expect(endWith('r1', EXIT_CODES.ok)).resolves.toBeUndefined();
    await expect(endWith('r1', EXIT_CODES.budgetSpent, 'max_runtime (15min) exceeded')).rejects.toThrow(
      /^run r1 ended: reached its time limit of 15 min \(exit code 5\)$/,
    );
    await expect(
      endWith('r1', EXIT_CODES.budgetSpent, 'Iteration 11 exceeds maximum of 10. Circuit breaker triggered.'),
    ).rejects.toThrow(/^run r1 ended: reached its iteration limit of 10 \(exit code 5\)$/);
    await expect(endWith('r1', EXIT_CODES.spendStopped)).rejects.toThrow(
      /^run r1 ended: stopped by the spend guard \(exit code 6\)$/,
    );
    await expect(endWith('r1', EXIT_CODES.paused)).rejects.toThrow(/^run r1 ended: paused \(exit code 3\)$/);
  });
});
