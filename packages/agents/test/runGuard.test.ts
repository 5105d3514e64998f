import { asyncInMemoryStorage, ConfigurationError, InMemoryStateMachine } from '@loopguard/core';
import type { RunTally } from '@loopguard/core/internal';
import { setStepLoopDetectionEnabled } from '@loopguard/core/steps';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contentSteps } from '../src/ai-sdk/contentSteps.js';
import { RunGuard, TALLY_DELAY_MS } from '../src/shared/RunGuard.js';
import { errorText, outputText } from '../src/shared/stepText.js';

const failing = [
  { type: 'action', tool: 'bash', input: 'cat missing.txt' },
  { type: 'observation', tool: 'bash', output: 'cat: missing.txt: No such file or directory', error: true },
] as const;

function loop(run: RunGuard, times: number): void {
  for (let i = 0; i < times; i++) for (const step of failing) run.observe(step);
}

/** Fails the same way until the detector nudges; returns how many failures that took. */
function loopUntilNudged(run: RunGuard): number {
  for (let times = 1; times <= 10; times++) {
    loop(run, 1);
    if (run.nudges.length > 0) return times;
  }
  throw new Error('no nudge after 10 identical failures');
}

describe('RunGuard', () => {
  it('keeps a nudge until it is taken, once, and the stop after it', () => {
    const run = new RunGuard();
    loopUntilNudged(run);
    expect(run.takeNudge()).toContain('Loop detected (same_error)');
    expect(run.takeNudge()).toBeNull();
    expect(run.stopped).toBe(false);
    loop(run, 1);
    expect(run.stopVerdict).toMatchObject({ action: 'stop', loopType: 'same_error' });
    expect(run.observe(failing[0])).toBeNull(); // nothing is judged after the stop
  });

  it('skips a step the detector rejects and logs it, without counting it', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const run = new RunGuard({ logger });
    expect(run.observe({ type: 'observation', output: 3 } as never)).toBeNull();
    expect(run.detector.stepCount).toBe(0);
    expect(lines.join('')).toContain('Step skipped');
  });

  it('records through a synchronous state machine at once', () => {
    const stateMachine = new InMemoryStateMachine();
    const run = new RunGuard({ stateMachine, taskId: 'T1' });
    loop(run, 5);
    expect(stateMachine.listContextEntries().map((e) => e.topic)).toEqual(['loop_stop', 'loop_nudge']);
  });

  it('names its adapter and a run id in every entry, so that the run is one session (agent_sessions)', () => {
    const stateMachine = new InMemoryStateMachine();
    loop(new RunGuard({ stateMachine, taskId: 'T1' }, 'ai-sdk'), 5);
    loop(new RunGuard({ stateMachine, taskId: 'T1', runId: 'r9' }, 'langgraph'), 5);
    const named = stateMachine.listContextEntries().map((e) => [e.metadata.adapter, e.metadata.runId]);
    expect(named.filter(([adapter]) => adapter === 'langgraph')).toEqual([
      ['langgraph', 'r9'],
      ['langgraph', 'r9'],
      ['langgraph', 'r9'],
    ]);
    const [first, ...others] = named.filter(([adapter]) => adapter === 'ai-sdk');
    expect(first?.[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(others.map(([, runId]) => runId)).toEqual([first?.[1], first?.[1]]);
  });

  it("records an adapter's run once, at its first step, so that a run loopguard never spoke to is a session too (adapters44)", () => {
    const stateMachine = new InMemoryStateMachine();
    const run = new RunGuard({ stateMachine, taskId: 'T1', runId: 'r7' }, 'openai-agents');
    expect(stateMachine.listContextEntries()).toEqual([]);
    run.observe({ type: 'action', tool: 'bash', input: 'ls' });
    run.observe({ type: 'observation', tool: 'bash', output: 'a.txt' });
    run.observeUsage([]);
    const entries = stateMachine.listContextEntries();
    expect(entries.map((e) => [e.topic, e.relatedTasks, e.metadata])).toEqual([
      ['run_started', ['T1'], { runId: 'r7', projectDir: process.cwd(), adapter: 'openai-agents' }],
    ]);
    // the project given names the run's
    const given = new InMemoryStateMachine();
    new RunGuard(
      { stateMachine: given, taskId: 'T1', runId: 'r8', projectDir: '/repo' },
      'langgraph',
    ).observe({
      type: 'action',
      tool: 'bash',
      input: 'ls',
    });
    expect(given.listContextEntries()[0]?.metadata).toEqual({
      runId: 'r8',
      projectDir: '/repo',
      adapter: 'langgraph',
    });
    // a guard of no adapter (the detector alone) records no run
    const bare = new InMemoryStateMachine();
    new RunGuard({ stateMachine: bare, taskId: 'T1' }).observe({ type: 'action', tool: 'bash', input: 'ls' });
    expect(bare.listContextEntries()).toEqual([]);
  });

  it('records through an asynchronous state machine, written by settled()', async () => {
    const storage = asyncInMemoryStorage();
    const run = new RunGuard({ stateMachine: storage.stateMachine, taskId: 'T1', runId: 'r1' });
    loop(run, 5);
    await run.settled();
    const entries = await storage.stateMachine.listContextEntries({ taskId: 'T1' });
    expect(entries.map((e) => e.topic)).toEqual(['loop_stop', 'loop_nudge']);
    expect(entries[0]?.metadata).toMatchObject({ runId: 'r1', loopType: 'same_error' });
  });

  it('logs a failed asynchronous write and goes on', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const stateMachine = { addContextEntry: async () => Promise.reject(new Error('connection reset')) };
    const run = new RunGuard({ stateMachine: stateMachine as never, taskId: 'T1', logger });
    loop(run, 3);
    await run.settled();
    expect(run.nudges).toHaveLength(1);
    expect(lines.join('')).toContain('connection reset');
  });

  describe("sessions54: a run's tally (tool calls, spend) written as it goes, at a bounded cost", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A state machine that keeps its tallies (the port's optional method). */
    function tallyStore() {
      const tallies: RunTally[] = [];
      const stateMachine = Object.assign(new InMemoryStateMachine(), {
        recordRunTally: (tally: RunTally) => {
          tallies.push(tally);
        },
      });
      return { stateMachine, tallies };
    }
    const call = (n: number) => ({ type: 'action', tool: 'bash', input: `echo ${n}` }) as const;

    it('writes once per delay whatever the pace, and at once, marked ended, at the run end', () => {
      vi.useFakeTimers();
      const { stateMachine, tallies } = tallyStore();
      const run = new RunGuard({ stateMachine, taskId: 'T1', runId: 'r1', projectDir: '/repo' }, 'ai-sdk');
      for (let n = 0; n < 50; n++) run.observe(call(n));
      // the first call at once (the run shows it), the 49 others in one write when the delay is over
      expect(tallies).toMatchObject([
        { adapter: 'ai-sdk', runId: 'r1', projectDir: '/repo', toolCalls: 1, tokens: null, ended: false },
      ]);
      vi.advanceTimersByTime(TALLY_DELAY_MS - 1);
      expect(tallies).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(tallies.map((t) => t.toolCalls)).toEqual([1, 50]);
      vi.advanceTimersByTime(10 * TALLY_DELAY_MS); // nothing changed: nothing written
      expect(tallies).toHaveLength(2);
      run.observe(call(50)); // after a quiet stretch: at once
      run.observe(call(51));
      run.end();
      expect(tallies.map((t) => [t.toolCalls, t.ended])).toEqual([
        [1, false],
        [50, false],
        [51, false],
        [52, true],
      ]);
      vi.advanceTimersByTime(TALLY_DELAY_MS); // the end cleared the pending write
      expect(tallies).toHaveLength(4);
    });

    it('carries the spend and the budget where a budget counts them', async () => {
      const { stateMachine, tallies } = tallyStore();
      const prices = { m: { input: 1000, output: 2000 } };
      const run = new RunGuard(
        { stateMachine, taskId: 'T1', runId: 'r2', spend: { session: { maxCostUsd: 1 }, prices } },
        'langgraph',
      );
      run.observe(call(1));
      await run.observeUsage([
        {
          replyId: 'u1',
          model: 'm',
          inputTokens: 10,
          outputTokens: 5,
          cacheCreationTokens: 0,
          cacheReadTokens: 0,
        },
      ]);
      run.end();
      expect(tallies.at(-1)).toMatchObject({
        toolCalls: 1,
        tokens: 15,
        costUsd: 0.02,
        unpricedTokens: 0,
        budgetUsd: 1,
        budgetTokens: null,
        ended: true,
      });
    });

    it('writes nothing for a run switched off, or through a store without the method', () => {
      const { stateMachine, tallies } = tallyStore();
      const off = new RunGuard({ stateMachine, taskId: 'T1', runId: 'r3', enabled: false }, 'ai-sdk');
      off.observe(call(1));
      off.end();
      expect(tallies).toEqual([]);
      const plain = new InMemoryStateMachine();
      const run = new RunGuard({ stateMachine: plain, taskId: 'T1', runId: 'r4' }, 'ai-sdk');
      run.observe(call(1));
      expect(run.end()).toBeUndefined();
      expect(plain.listContextEntries().map((e) => e.topic)).toEqual(['run_started']);
    });

    it('logs a failed write and goes on (the guard never breaks the run)', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
      const stateMachine = Object.assign(new InMemoryStateMachine(), {
        recordRunTally: async () => Promise.reject(new Error('connection reset')),
      });
      const run = new RunGuard({ stateMachine, taskId: 'T1', runId: 'r5', logger }, 'ai-sdk');
      run.observe(call(1));
      await run.end();
      expect(lines.join('')).toContain('connection reset');
    });
  });

  it('rejects a bad option with a ConfigurationError naming it', () => {
    expect(() => new RunGuard({ stopAfter: 0 })).toThrow(ConfigurationError);
    expect(() => new RunGuard({ stateMachine: {} as never, taskId: 'T1' })).toThrow(/stateMachine/);
    expect(() => new RunGuard({ stateMachine: new InMemoryStateMachine() })).toThrow(/taskId/);
  });
});

describe('step texts', () => {
  it('reads outputs as strings or JSON and errors by their message', () => {
    expect(outputText('x')).toBe('x');
    expect(outputText(undefined)).toBe('');
    expect(outputText({ ok: false })).toBe('{"ok":false}');
    expect(outputText(10n)).toBe('10');
    expect(errorText(new Error('boom'))).toBe('boom');
    expect(errorText('plain')).toBe('plain');
  });
});

describe('a run switched off is guarded in nothing and recorded nowhere (trust44)', () => {
  const silentRun = (options: { enabled?: boolean } = {}) => {
    const stateMachine = new InMemoryStateMachine();
    const run = new RunGuard({ stateMachine, taskId: 'T1', runId: 'r1', ...options }, 'ai-sdk');
    loop(run, 6);
    run.observeUsage([]);
    return { run, topics: stateMachine.listContextEntries().map((e) => e.topic) };
  };

  it('enabled: false (each adapter passes its options to this one guard): no nudge, no stop, no entry', () => {
    const { run, topics } = silentRun({ enabled: false });
    expect(run.nudges).toEqual([]);
    expect(run.stopped).toBe(false);
    // on main: ['run_started'], which status and the dashboard listed as "no loop found"
    expect(topics).toEqual([]);
  });

  it("the process's switch (setStepLoopDetectionEnabled(false)) too", () => {
    setStepLoopDetectionEnabled(false);
    try {
      const { run, topics } = silentRun();
      expect([run.nudges, run.stopped, topics]).toEqual([[], false, []]);
    } finally {
      setStepLoopDetectionEnabled(true);
    }
  });

  it('a run whose detection is off but whose budget is set is still a session (the spend guard watches it)', () => {
    const stateMachine = new InMemoryStateMachine();
    const run = new RunGuard(
      { stateMachine, taskId: 'T2', runId: 'r2', enabled: false, spend: { session: { maxTokens: 10 } } },
      'ai-sdk',
    );
    run.observe(failing[0]);
    expect(stateMachine.listContextEntries().map((e) => e.topic)).toEqual(['run_started']);
  });
});

describe('AI SDK content → steps', () => {
  it('pairs each parallel call with its own result, failures flagged, texts as messages', () => {
    const steps = contentSteps([
      { type: 'reasoning', text: 'Read both.' },
      { type: 'tool-call', toolCallId: 'a', toolName: 'read', input: { path: 'a' } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'read', input: { path: 'b' } },
      { type: 'tool-error', toolCallId: 'b', toolName: 'read', error: new Error('ENOENT b') },
      { type: 'tool-result', toolCallId: 'a', toolName: 'read', output: 'A' },
      { type: 'text', text: '   ' },
    ]);
    expect(steps).toEqual([
      { type: 'message', text: 'Read both.' },
      { type: 'action', tool: 'read', input: { path: 'a' } },
      { type: 'observation', tool: 'read', output: 'A' },
      { type: 'action', tool: 'read', input: { path: 'b' } },
      { type: 'observation', tool: 'read', output: 'ENOENT b', error: true },
    ]);
  });

  it('keeps a result whose call is not in the step, and a call with no result', () => {
    expect(
      contentSteps([
        { type: 'tool-result', toolCallId: 'x', toolName: 'search', output: { hits: 0 } },
        { type: 'tool-call', toolCallId: 'y', toolName: 'ask', input: undefined },
        { type: 'source' },
      ]),
    ).toEqual([
      { type: 'observation', tool: 'search', output: '{"hits":0}' },
      { type: 'action', tool: 'ask', input: {} },
    ]);
  });
});
