import { ConfigurationError } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { makeLoop, report, runTask, scriptedPolicy } from './helpers.js';

/** An executor that reports fresh work and `tokens` input tokens of `model` per run (reply id `r<n>`). */
function spending(tokens: number, model = 'unpriced-model') {
  let n = 0;
  return async (task: { id: string }) => {
    n++;
    return {
      ...report('in_progress', [`step ${n} of ${task.id}`]),
      usage: [{ id: `r${n}`, model, inputTokens: tokens }],
    };
  };
}

describe('OrchestratorLoop: the spend option', () => {
  it('warns, then blocks a task at its budget and skips it afterwards; entries record both', async () => {
    const { loop, stateMachine } = makeLoop({
      policy: scriptedPolicy([runTask('T1'), runTask('T1'), runTask('T1'), runTask('T1')]),
      executor: spending(40),
      spend: { task: { maxTokens: 100 } },
    });
    stateMachine.upsertTask({ id: 'T1' });
    const results = [await loop.tick(), await loop.tick(), await loop.tick(), await loop.tick()];
    expect(results.map((r) => r.details.spend?.action ?? null)).toEqual([null, 'warn', 'stop', 'stop']);
    expect(results[3]?.details.skipped).toBe('spend_budget');
    expect(stateMachine.getTask('T1')?.status).toBe('blocked');
    const entries = stateMachine.listContextEntries({ topics: ['spend_warning', 'spend_stop'] }).reverse();
    expect(entries.map((e) => [e.topic, e.relatedTasks[0], e.metadata.scope])).toEqual([
      ['spend_warning', 'T1', 'task'],
      ['spend_stop', 'T1', 'task'],
    ]);
    expect(entries[1]?.content).toContain('task T1 reached its budget (120 of 100 tokens)');
  });

  it("the run's budget counts every task, stops the loop, and a duplicated reply id counts once", async () => {
    let n = 0;
    const { loop, log } = makeLoop({
      policy: scriptedPolicy([runTask('A'), runTask('B'), runTask('C')]),
      executor: async () => {
        n++;
        // every report repeats the previous reply: it is counted once
        return {
          ...report('in_progress', [`w${n}`]),
          usage: [
            { id: `r${n - 1}`, inputTokens: 60 },
            { id: `r${n}`, inputTokens: 60 },
          ],
        };
      },
      spend: { session: { maxTokens: 150 } },
    });
    const first = await loop.tick();
    const second = await loop.tick();
    expect(first.details.spend).toMatchObject({ action: 'warn', scope: 'session' }); // r0, r1: 120 of 150
    expect(second.details.spend).toMatchObject({ action: 'stop', scope: 'session' });
    expect(log.messages()).toContainEqual(
      expect.stringContaining('this orchestrator run reached its budget (180 of 150 tokens)'),
    );
    // the next tick runs nothing: the run's budget is spent
    expect((await loop.tick()).details).toMatchObject({ skipped: 'spend_budget' });
    expect(second.details.spend?.evidence.spent).toMatchObject({ replies: 3, tokens: 180 });
  });

  it('prices a model from the pricing library, with a per-model override; bad usage counts as 0, never fails the tick', async () => {
    const { loop } = makeLoop({
      policy: scriptedPolicy([runTask('T1'), runTask('T1')]),
      executor: async () => ({
        ...report('in_progress', [String(Math.random())]),
        usage: [
          { model: 'claude-sonnet-4-5', inputTokens: 100_000 },
          { model: 'mine', inputTokens: 1_000_000 },
          { inputTokens: -5, outputTokens: 'x' as unknown as number },
        ],
      }),
      spend: { task: { maxCostUsd: 2 }, prices: { mine: { input: 1, output: 1 } } },
    });
    const first = await loop.tick();
    expect(first.success).toBe(true);
    expect(first.details.spend).toBeUndefined(); // $0.30 + $1.00 of $2.00
    const second = await loop.tick();
    expect(second.details.spend).toMatchObject({
      action: 'stop',
      evidence: { spent: { costUsd: expect.closeTo(2.6, 9), replies: 6 } },
    });
  });

  it('rejects a bad spend option naming it', () => {
    expect(() => makeLoop({ spend: { task: { maxTokens: 0 } } })).toThrow(ConfigurationError);
    expect(() => makeLoop({ spend: { task: { maxTokens: 0 } } })).toThrow('spend: "task.maxTokens"');
  });
});
