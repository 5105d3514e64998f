import { InMemoryStateMachine } from '@loopguard/core';
import type { RunTally } from '@loopguard/core/internal';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BudgetSpentError, LoopStoppedError, loopGuard, RunUsage } from '../src/openai-agents/index.js';
import { PROGRESS, PROGRESS_FILES } from './progress.js';

type Reply = { tool: string; args: Record<string, unknown> } | { text: string };

/** A scripted `Model`: call `n` (0-based) answers `script(n)`; every request is kept. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  /** @param usage - what each response reports (none by default, as the runs above). */
  constructor(
    private readonly script: (call: number) => Reply,
    private readonly usage?: () => Usage,
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const call = this.requests.push(request) - 1;
    const reply = this.script(call);
    const output: ModelResponse['output'] =
      'text' in reply
        ? [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: reply.text }],
            },
          ]
        : [
            {
              type: 'function_call',
              callId: `call_${call}`,
              name: reply.tool,
              arguments: JSON.stringify(reply.args),
              status: 'completed',
            },
          ];
    return { usage: this.usage?.() ?? new Usage(), output, responseId: `resp_${call}` };
  }

  // biome-ignore lint/correctness/useYield: the runs here never stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not scripted');
  }
}

beforeAll(() => setTracingDisabled(true));

function fileAgent(
  model: Model,
  files: Record<string, string>,
  errorFunction?: ReturnType<typeof loopGuard>['errorFunction'],
) {
  return new Agent({
    name: 'files',
    instructions: 'Work on the files.',
    model,
    tools: [
      tool({
        name: 'readFile',
        description: 'Read a file',
        parameters: z.object({ path: z.string() }),
        execute: async ({ path }) => {
          const text = files[path];
          if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
          return text;
        },
        ...(errorFunction === undefined ? {} : { errorFunction }),
      }),
      tool({
        name: 'writeFile',
        description: 'Write a file',
        parameters: z.object({ path: z.string(), text: z.string() }),
        execute: async ({ path, text }) => {
          files[path] = text;
          return `wrote ${path}`;
        },
      }),
    ],
  });
}

/** The user messages of one request's input. */
function userTexts(request: ModelRequest | undefined): string[] {
  const input = (request?.input ?? []) as AgentInputItem[];
  return input
    .filter(
      (item): item is AgentInputItem & { role: 'user'; content: string } =>
        'role' in item && item.role === 'user',
    )
    .map((item) => (typeof item.content === 'string' ? item.content : JSON.stringify(item.content)));
}

const readMissing: Reply = { tool: 'readFile', args: { path: 'missing.txt' } };

describe('OpenAI Agents loopGuard (a scripted Model)', () => {
  it('nudges a looping run in the next model input, then rejects the run with LoopStoppedError', async () => {
    const model = new ScriptedModel(() => readMissing);
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({ stateMachine, taskId: 'T1' });
    const error = await run(fileAgent(model, {}, guard.errorFunction), 'Summarise missing.txt', {
      callModelInputFilter: guard.callModelInputFilter,
      maxTurns: 50,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LoopStoppedError);
    expect((error as LoopStoppedError).verdict).toMatchObject({ action: 'stop', loopType: 'same_error' });
    expect((error as LoopStoppedError).code).toBe('aborted');
    expect((error as LoopStoppedError).message).toContain(
      "ENOENT: no such file or directory, open 'missing.txt'",
    );
    // the request after the failure that made the nudge carries it, none before; the next same
    // failure stops the run before another request
    const nudged = model.requests.findIndex((request) =>
      userTexts(request).some((t) => t.startsWith('Loop detected')),
    );
    expect(nudged).toBeGreaterThanOrEqual(2);
    expect(userTexts(model.requests[nudged])).toContain(guard.run.nudges[0]);
    expect(model.requests).toHaveLength(nudged + 1);
    expect(stateMachine.listContextEntries().map((e) => e.topic)).toEqual([
      'loop_stop',
      'loop_nudge',
      'run_started',
    ]);
  });

  it('counts the SDK’s default tool error text as a failure when the tool has no errorFunction', async () => {
    const model = new ScriptedModel(() => readMissing);
    const guard = loopGuard();
    const error = await run(fileAgent(model, {}), 'x', {
      callModelInputFilter: guard.callModelInputFilter,
      maxTurns: 50,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LoopStoppedError);
    expect(guard.stopVerdict?.evidence.at(-1)).toMatchObject({ error: true });
  });

  it('leaves a progressing run alone: it finishes with its final output', async () => {
    const model = new ScriptedModel((call) => PROGRESS[call] ?? { text: 'All written.' });
    const files: Record<string, string> = {};
    const guard = loopGuard();
    const result = await run(fileAgent(model, files), 'Write the config parser', {
      callModelInputFilter: guard.callModelInputFilter,
    });
    expect(result.finalOutput).toBe('All written.');
    expect(Object.keys(files).sort()).toEqual(PROGRESS_FILES);
    expect(guard.run.nudges).toEqual([]);
    expect(guard.stopVerdict).toBeNull();
    expect(guard.run.detector.stepCount).toBe(10);
  });

  it('calls the run’s own filter first and judges what it returns', async () => {
    const model = new ScriptedModel(() => readMissing);
    let calls = 0;
    const guard = loopGuard({
      callModelInputFilter: ({ modelData }) => {
        calls++;
        return { ...modelData, instructions: 'Be brief.' };
      },
    });
    await run(fileAgent(model, {}), 'x', {
      callModelInputFilter: guard.callModelInputFilter,
      maxTurns: 50,
    }).catch(() => undefined);
    expect(calls).toBe(model.requests.length + 1); // the last call ends in the stop
    expect(model.requests[0]?.systemInstructions).toBe('Be brief.');
  });
});

describe('OpenAI Agents loopGuard: the spend option (RunContext.usage, through watch)', () => {
  // every response: 1,000 input tokens of which 600 cached, 50 output
  const usage = () =>
    new Usage({
      requests: 1,
      inputTokens: 1000,
      outputTokens: 50,
      totalTokens: 1050,
      inputTokensDetails: { cached_tokens: 600 },
    });
  const writes = (call: number): Reply => ({ tool: 'writeFile', args: { path: `f${call}.txt`, text: 'x' } });
  // priced by the agent's model name: $1,000 / $2,000 / $100 per million: $0.56 a response
  const prices = { 'scripted-model': { input: 1000, output: 2000, cacheRead: 100 } };

  it('warns at 80 % in the next model input, then ends run() with BudgetSpentError before the next call', async () => {
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({ stateMachine, taskId: 'T1', spend: { session: { maxCostUsd: 2 }, prices } });
    const model = new ScriptedModel(writes, usage);
    const agent = guard.watch(Object.assign(fileAgent(model, {}), { model: 'scripted-model' }));
    const runner = new Runner({ modelProvider: { getModel: () => model } });
    const error = await runner
      .run(agent, 'Write files', { callModelInputFilter: guard.callModelInputFilter, maxTurns: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetSpentError);
    expect((error as BudgetSpentError).message).toContain('this run reached its budget ($2.24 of $2.00)');
    // responses 1-3 cost $1.68 (84 %): the fourth request carries the warning; none after the fourth response
    const inputs = model.requests.map((r) => JSON.stringify(r.input));
    expect(inputs[2]).not.toContain('you have spent');
    expect(inputs[3]).toContain('you have spent $1.68 of $2.00 on this run (84 %)');
    expect(model.requests).toHaveLength(4);
    expect(guard.spendStopVerdict).toMatchObject({ action: 'stop', reason: 'cap' });
    expect(guard.stopVerdict).toBeNull();
    const entries = stateMachine.listContextEntries({ topics: ['spend_warning', 'spend_stop'] }).reverse();
    expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
    expect(entries[1]?.metadata).toMatchObject({
      spent: { replies: 4, inputTokens: 1600, cacheReadTokens: 2400, outputTokens: 200 },
    });
  });

  it('counts every response once (the final one too), in tokens when the model has no name or price', async () => {
    const tallies: RunTally[] = [];
    const stateMachine = Object.assign(new InMemoryStateMachine(), {
      recordRunTally: (tally: RunTally) => {
        tallies.push(tally);
      },
    });
    const guard = loopGuard({ stateMachine, taskId: 'T1', spend: { session: { maxCostUsd: 100 } } });
    const model = new ScriptedModel((call) => (call < 2 ? writes(call) : { text: 'Done.' }), usage);
    const agent = guard.watch(fileAgent(model, {}));
    // watching twice (a second guard.watch of the same agent) counts nothing twice
    guard.watch(agent);
    await run(agent, 'Write files', { callModelInputFilter: guard.callModelInputFilter });
    expect(guard.spendStopVerdict).toBeNull();
    expect(guard.run.spend?.spent).toMatchObject({
      replies: 3,
      tokens: 3150,
      costUsd: 0,
      unpricedTokens: 3150,
    });
    // sessions54: agent_end told the store the run ended, with its tool calls and tokens
    await guard.run.settled();
    expect(tallies.at(-1)).toMatchObject({ toolCalls: 2, tokens: 3150, unpricedTokens: 3150, ended: true });
  });

  it('reads usage totals defensively: new context, reset totals, nothing new, no usage', () => {
    const counter = new RunUsage();
    // the SDK's totals as they may come: details missing or partial, counts negative
    const context: { usage: Record<string, unknown> } = {
      usage: { requests: 1, inputTokens: 100, outputTokens: 5, inputTokensDetails: [{ cached_tokens: 40 }] },
    };
    expect(counter.since(context, 'm')).toEqual({
      model: 'm',
      inputTokens: 60,
      cacheReadTokens: 40,
      outputTokens: 5,
      cacheCreationTokens: 0,
    });
    expect(counter.since(context, 'm')).toBeUndefined();
    context.usage = {
      requests: 2,
      inputTokens: 150,
      outputTokens: 7,
      inputTokensDetails: [{ cached_tokens: 40 }, {}],
    };
    expect(counter.since(context, 'm')).toMatchObject({
      inputTokens: 50,
      cacheReadTokens: 0,
      outputTokens: 2,
    });
    context.usage = { requests: 1, inputTokens: 10, outputTokens: -3, inputTokensDetails: [] };
    expect(counter.since(context, undefined)).toMatchObject({ inputTokens: 10, outputTokens: 0 });
    expect(counter.since({}, 'm')).toBeUndefined();
    expect(counter.since(null, 'm')).toBeUndefined();
  });
});
