import { InMemoryStateMachine } from '@loopguard/core';
import type { RunTally } from '@loopguard/core/internal';
import { generateText, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loopGuard } from '../src/ai-sdk/index.js';
import { stepUsage } from '../src/ai-sdk/stepUsage.js';
import { scriptedModel } from './aiSdkModel.js';

// The SDK's mock model reports 10 input and 5 output tokens a step, as model `mock-model-id`.
// Priced here at $1,000 / $2,000 per million: $0.02 a step.
const PRICES = { 'mock-model-id': { input: 1000, output: 2000 } };

/** A model that makes progress: a new file every step. */
const writes = scriptedModel((call) => ({
  tool: 'writeFile',
  input: { path: `f${call}.txt`, text: `v${call}` },
}));
const tools = {
  writeFile: tool({
    description: 'Write a file',
    inputSchema: z.object({ path: z.string(), text: z.string() }),
    execute: async ({ path }) => `wrote ${path}`,
  }),
};

function userTexts(prompt: ReadonlyArray<{ role: string; content: unknown }>): string[] {
  return prompt
    .filter((m) => m.role === 'user')
    .flatMap((m) =>
      Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '') : [String(m.content)],
    );
}

describe('AI SDK loopGuard: the spend option (the SDK mock model)', () => {
  it('warns at 80 % in the next prompt and stops the run at its budget in dollars, recording both', async () => {
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({
      taskId: 'T1',
      stateMachine,
      spend: { session: { maxCostUsd: 0.05 }, prices: PRICES },
    });
    const result = await generateText({
      model: writes,
      tools,
      prompt: 'Write files',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    expect(result.steps).toHaveLength(3);
    expect(guard.spendStopVerdict).toMatchObject({ action: 'stop', reason: 'cap', scope: 'session' });
    expect(guard.spendStopVerdict?.message).toContain('this run reached its budget ($0.06 of $0.05)');
    const prompts = writes.doGenerateCalls.map((call) => call.prompt);
    expect(userTexts(prompts[1] ?? []).some((t) => t.includes('you have spent'))).toBe(false);
    expect(userTexts(prompts[2] ?? [])).toContainEqual(
      expect.stringContaining('you have spent $0.04 of $0.05 on this run (80 %)'),
    );
    const entries = stateMachine.listContextEntries({ topics: ['spend_warning', 'spend_stop'] }).reverse();
    expect(entries.map((e) => [e.topic, e.relatedTasks])).toEqual([
      ['spend_warning', ['T1']],
      ['spend_stop', ['T1']],
    ]);
    expect(entries[1]?.metadata).toMatchObject({ spent: { replies: 3, inputTokens: 30, outputTokens: 15 } });
  });

  it('a dollar budget without a price for the model says so at the first step, in the next prompt and the entries', async () => {
    const stateMachine = new InMemoryStateMachine();
    const model = scriptedModel((call) =>
      call < 2 ? { tool: 'writeFile', input: { path: `u${call}.txt`, text: 'x' } } : { text: 'done' },
    );
    const guard = loopGuard({ taskId: 'T3', stateMachine, spend: { session: { maxCostUsd: 0.05 } } });
    await generateText({
      model,
      tools,
      prompt: 'Write files',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    const prompts = model.doGenerateCalls.map((call) => call.prompt);
    expect(userTexts(prompts[1] ?? [])).toContainEqual(
      expect.stringContaining(
        'this run cannot be held to its budget of $0.05: the cost of 15 tokens is unknown (no price for mock-model-id)',
      ),
    );
    expect(stateMachine.listContextEntries({ topics: ['spend_warning'] })).toMatchObject([
      { metadata: { reason: 'unknown_price' } },
    ]);
    // onUnknownPrice: stop ends the run at that step
    const strict = loopGuard({
      taskId: 'T4',
      spend: { session: { maxCostUsd: 0.05 }, onUnknownPrice: 'stop' },
    });
    const stopped = await generateText({
      model: writes,
      tools,
      prompt: 'Write files',
      prepareStep: strict.prepareStep,
      stopWhen: strict.stopWhen,
    });
    expect(stopped.steps).toHaveLength(1);
    expect(strict.spendStopVerdict).toMatchObject({ action: 'stop', reason: 'unknown_price' });
  });

  it('a token budget still prices a model the pricing library knows', async () => {
    const model = scriptedModel(
      (call) =>
        call < 2 ? { tool: 'writeFile', input: { path: `p${call}.txt`, text: 'x' } } : { text: 'done' },
      'claude-sonnet-4-5',
    );
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({ taskId: 'T5', stateMachine, spend: { session: { maxTokens: 30 } } });
    await generateText({
      model,
      tools,
      prompt: 'Write files',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    // 10 input tokens at $3 and 5 output tokens at $15 per million a step
    const [stop] = stateMachine.listContextEntries({ topics: ['spend_stop'] });
    expect(stop?.metadata).toMatchObject({
      reason: 'cap',
      spent: { tokens: 30, unpricedTokens: 0, costUsd: expect.closeTo(0.00021, 9) },
      toolCall: 2, // the run's tool calls when the stop ended it: the sessions' count
    });
  });

  it('stops a streamText run at a token budget; the task budget counts across runs of one guard', async () => {
    const model = scriptedModel((call) => ({
      tool: 'writeFile',
      input: { path: `s${call}.txt`, text: 'x' },
    }));
    const guard = loopGuard({ taskId: 'T2', spend: { task: { maxTokens: 30 } } });
    const result = streamText({
      model,
      tools,
      prompt: 'Write files',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    expect(await result.steps).toHaveLength(2);
    expect(guard.spendStopVerdict?.message).toContain('task T2 reached its budget (30 of 30 tokens)');
  });

  it('an unknown model is counted in tokens and its cost is unknown, never $0', async () => {
    const guard = loopGuard({ spend: { session: { maxCostUsd: 0.01, maxTokens: 1000 } } });
    await generateText({
      model: writes,
      tools,
      prompt: 'Write files',
      prepareStep: guard.prepareStep,
      stopWhen: [guard.stopWhen[0] as never, ({ steps }) => steps.length >= 3],
    });
    expect(guard.spendStopVerdict).toBeNull();
    expect(guard.run.spend?.spent).toMatchObject({
      replies: 3,
      tokens: 45,
      costUsd: 0,
      unpricedTokens: 45,
      unpricedModels: ['mock-model-id'],
    });
  });

  it('sessions54: onEnd counts the final reply and tells the store the run ended, with its tool calls and dollars', async () => {
    const tallies: RunTally[] = [];
    const stateMachine = Object.assign(new InMemoryStateMachine(), {
      recordRunTally: (tally: RunTally) => {
        tallies.push(tally);
      },
    });
    const model = scriptedModel((call) =>
      call < 2 ? { tool: 'writeFile', input: { path: `e${call}.txt`, text: 'x' } } : { text: 'done' },
    );
    const guard = loopGuard({
      taskId: 'T5',
      runId: 'r5',
      stateMachine,
      spend: { session: { maxCostUsd: 1 }, prices: PRICES },
    });
    await generateText({
      model,
      tools,
      prompt: 'Write files',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
      onEnd: guard.onEnd,
    });
    await guard.run.settled();
    // three replies at $0.02: the final one (no stopWhen after it) counted through onEnd
    expect(tallies.at(-1)).toMatchObject({
      adapter: 'ai-sdk',
      runId: 'r5',
      toolCalls: 2,
      costUsd: 0.06,
      budgetUsd: 1,
      ended: true,
    });
  });

  it('no spend option, no spend guard; a bad one is a ConfigurationError naming it', () => {
    expect(loopGuard().run.spend).toBeUndefined();
    expect(() => loopGuard({ spend: { session: { maxTokens: -1 } } })).toThrow(
      'spend option: "session.maxTokens"',
    );
  });

  it('reads the usage of a step: cache details, totals without details, missing parts', () => {
    expect(
      stepUsage({
        usage: {
          inputTokens: 100,
          inputTokenDetails: { noCacheTokens: 20, cacheReadTokens: 70, cacheWriteTokens: 10 },
          outputTokens: 5,
          outputTokenDetails: { textTokens: 5, reasoningTokens: undefined },
          totalTokens: 105,
        },
        response: { id: 'r1', modelId: 'gpt-5', timestamp: new Date(0), messages: [] } as never,
      }),
    ).toEqual([
      {
        replyId: 'r1',
        model: 'gpt-5',
        at: 0,
        inputTokens: 20,
        cacheReadTokens: 70,
        cacheCreationTokens: 10,
        outputTokens: 5,
      },
    ]);
    expect(stepUsage({ usage: { inputTokens: 50, outputTokens: -3 } as never })).toEqual([
      { inputTokens: 50, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    ]);
    expect(stepUsage({})).toEqual([]);
  });
});

describe('every adapter takes the same spend option', () => {
  it('keeps a spend guard for a budget, none without one, and refuses a bad option naming it', async () => {
    const adapters = [
      loopGuard,
      (await import('../src/claude-agent-sdk/index.js')).loopGuard,
      (await import('../src/langgraph/index.js')).loopGuard,
      (await import('../src/openai-agents/index.js')).loopGuard,
    ] as Array<(options: { spend?: unknown }) => { run: { spend?: unknown }; spendStopVerdict: unknown }>;
    for (const adapter of adapters) {
      const guard = adapter({ spend: { session: { maxTokens: 10 } } });
      expect(guard.run.spend).toBeDefined();
      expect(guard.spendStopVerdict).toBeNull();
      expect(adapter({}).run.spend).toBeUndefined();
      expect(() => adapter({ spend: { session: { maxTokens: -1 } } })).toThrow(
        'spend option: "session.maxTokens"',
      );
    }
  });
});
