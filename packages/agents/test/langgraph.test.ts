import { AIMessage, type BaseMessage, HumanMessage, type UsageMetadata } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { asyncInMemoryStorage, InMemoryStateMachine } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type LangGraphLoopGuard, loopGuard } from '../src/langgraph/index.js';
import { PROGRESS, PROGRESS_FILES } from './progress.js';

type Reply = { tool: string; args: Record<string, unknown> } | { text: string };

function fileTools(files: Record<string, string>) {
  return [
    tool(
      async ({ path }: { path: string }) => {
        const text = files[path];
        if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
        return text;
      },
      { name: 'readFile', description: 'Read a file', schema: z.object({ path: z.string() }) },
    ),
    tool(
      async ({ path, text }: { path: string; text: string }) => {
        files[path] = text;
        return `wrote ${path}`;
      },
      {
        name: 'writeFile',
        description: 'Write a file',
        schema: z.object({ path: z.string(), text: z.string() }),
      },
    ),
  ];
}

/** An AIMessage with these fields (the SDK's default message structure types `usage_metadata` as absent). */
const aiMessage = (fields: Record<string, unknown>) => new AIMessage(fields as never);

/**
 * agent (scripted node) → tools (the prebuilt ToolNode) → loopguard → agent | END. The scripted
 * node answers its call `n` with `script(n)` and keeps the messages it was given.
 */
function scriptedGraph(
  script: (call: number) => Reply,
  guard: LangGraphLoopGuard,
  files: Record<string, string>,
  usage?: UsageMetadata,
) {
  const seen: BaseMessage[][] = [];
  const agent = async (state: typeof MessagesAnnotation.State) => {
    const call = seen.push([...state.messages]) - 1;
    const reply = script(call);
    // what a chat model integration reports with each reply (a model that reports nothing: none)
    const reported =
      usage === undefined
        ? {}
        : { id: `reply_${call}`, usage_metadata: usage, response_metadata: { model_name: 'scripted-model' } };
    const message =
      'text' in reply
        ? aiMessage({ content: reply.text, ...reported })
        : aiMessage({
            content: '',
            tool_calls: [{ id: `call_${call}`, name: reply.tool, args: reply.args }],
            ...reported,
          });
    return { messages: [message] };
  };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode(fileTools(files)))
    .addNode('loopguard', guard.node)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'loopguard')
    .addConditionalEdges('loopguard', guard.route('agent'), ['agent', END])
    .compile();
  return { graph, seen };
}

const readMissing: Reply = { tool: 'readFile', args: { path: 'missing.txt' } };
const texts = (messages: BaseMessage[] | undefined) =>
  (messages ?? []).filter((m) => HumanMessage.isInstance(m)).map((m) => m.text);

describe('LangGraph loopGuard (a small graph with a scripted node)', () => {
  it('nudges a looping agent through a HumanMessage it sees next, then routes the run to END', async () => {
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({ stateMachine, taskId: 'T1' });
    const { graph, seen } = scriptedGraph(() => readMissing, guard, {});
    const final = await graph.invoke(
      { messages: [new HumanMessage('Summarise missing.txt')] },
      { recursionLimit: 100 },
    );
    const nudged = seen.findIndex((messages) => texts(messages).some((t) => t.startsWith('Loop detected')));
    expect(nudged).toBeGreaterThanOrEqual(2);
    expect(texts(seen[nudged])).toContain(guard.run.nudges[0]);
    expect(seen).toHaveLength(nudged + 1); // the next same failure routes to END
    expect(guard.stopVerdict).toMatchObject({ action: 'stop', loopType: 'same_error' });
    expect(guard.stopVerdict?.message).toContain("ENOENT: no such file or directory, open 'missing.txt'");
    expect(final.messages.at(-1)?.text).toContain('ENOENT'); // ended on the failing result
    expect(stateMachine.listContextEntries().map((e) => e.topic)).toEqual([
      'loop_stop',
      'loop_nudge',
      'run_started',
    ]);
  });

  it('leaves a progressing agent alone: it ends on its own final answer', async () => {
    const files: Record<string, string> = {};
    const guard = loopGuard();
    const { graph } = scriptedGraph((call) => PROGRESS[call] ?? { text: 'Done.' }, guard, files);
    const final = await graph.invoke({ messages: [new HumanMessage('Write the config parser')] });
    expect(final.messages.at(-1)?.text).toBe('Done.');
    expect(Object.keys(files).sort()).toEqual(PROGRESS_FILES);
    expect(guard.run.nudges).toEqual([]);
    expect(guard.stopVerdict).toBeNull();
    expect(guard.run.detector.stepCount).toBe(10);
  });

  it('applies the detector options: stopAfter 2 gives the nudged loop one more turn before END', async () => {
    const guard = loopGuard({ stopAfter: 2 });
    const { graph, seen } = scriptedGraph(() => readMissing, guard, {});
    await graph.invoke({ messages: [new HumanMessage('x')] }, { recursionLimit: 100 });
    const nudged = seen.findIndex((messages) => texts(messages).some((t) => t.startsWith('Loop detected')));
    expect(nudged).toBeGreaterThan(0);
    expect(seen).toHaveLength(nudged + 2);
    expect(guard.stopVerdict?.loopType).toBe('same_error');
  });

  it('records through an asynchronous state machine before the run goes on, and stays synchronous without one', async () => {
    const storage = asyncInMemoryStorage();
    const guard = loopGuard({ stateMachine: storage.stateMachine, taskId: 'T1' });
    const { graph } = scriptedGraph(() => readMissing, guard, {});
    await graph.invoke({ messages: [new HumanMessage('x')] }, { recursionLimit: 100 });
    const entries = await storage.stateMachine.listContextEntries({ taskId: 'T1' });
    expect(entries.map((e) => e.topic)).toEqual(['loop_stop', 'loop_nudge', 'run_started']);
    // without a pending write the node answers at once, not with a promise
    expect(loopGuard().node({ messages: [] })).toEqual({});
  });
});

describe('LangGraph loopGuard: the spend option (usage_metadata of each AIMessage)', () => {
  // every reply: 1,000 input tokens, of which 600 read from the cache and 100 written to it, 50 output
  const usage: UsageMetadata = {
    input_tokens: 1000,
    output_tokens: 50,
    total_tokens: 1050,
    input_token_details: { cache_read: 600, cache_creation: 100 },
  };
  const writes = (call: number): Reply => ({ tool: 'writeFile', args: { path: `f${call}.txt`, text: 'x' } });
  // $1,000 per million input tokens, $2,000 output, $100 cache reads, $1,250 cache writes: $0.585 a reply
  const prices = { 'scripted-model': { input: 1000, output: 2000, cacheRead: 100, cacheWrite: 1250 } };

  it('warns at 80 % in a HumanMessage the model sees next, then routes the run to END at its budget', async () => {
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({ stateMachine, taskId: 'T1', spend: { session: { maxCostUsd: 2 }, prices } });
    const { graph, seen } = scriptedGraph(writes, guard, {}, usage);
    await graph.invoke({ messages: [new HumanMessage('Write files')] }, { recursionLimit: 100 });
    // replies 1-3 cost $1.755 (87 %, shown as $1.75: 1.7549… in binary): the fourth call sees the warning; the fourth reply reaches $2.34
    expect(texts(seen[2])).toEqual(['Write files']);
    expect(texts(seen[3])).toContainEqual(
      expect.stringContaining('you have spent $1.75 of $2.00 on this run (87 %)'),
    );
    expect(seen).toHaveLength(4);
    expect(guard.stopVerdict).toBeNull();
    expect(guard.spendStopVerdict?.message).toContain('this run reached its budget ($2.34 of $2.00)');
    const entries = stateMachine.listContextEntries({ topics: ['spend_warning', 'spend_stop'] }).reverse();
    expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
    expect(entries[1]?.metadata).toMatchObject({
      spent: {
        replies: 4,
        inputTokens: 1200,
        cacheReadTokens: 2400,
        cacheCreationTokens: 400,
        outputTokens: 200,
      },
    });
  });

  it('counts in tokens a model without a price (its cost unknown, never $0), and nothing from a model that reports no usage', async () => {
    const guard = loopGuard({ spend: { session: { maxCostUsd: 100 } } });
    const { graph } = scriptedGraph(
      (call) => (call < 3 ? writes(call) : { text: 'Done.' }),
      guard,
      {},
      usage,
    );
    await graph.invoke({ messages: [new HumanMessage('Write files')] });
    expect(guard.spendStopVerdict).toBeNull();
    // the final reply (no tool call) goes to END without passing the guard's node
    expect(guard.run.spend?.spent).toMatchObject({
      replies: 3,
      tokens: 3150,
      costUsd: 0,
      unpricedTokens: 3150,
      unpricedModels: ['scripted-model'],
    });
    const silent = loopGuard({ spend: { session: { maxTokens: 10 } } });
    await scriptedGraph((call) => (call < 3 ? writes(call) : { text: 'Done.' }), silent, {}).graph.invoke({
      messages: [new HumanMessage('Write files')],
    });
    expect(silent.run.spend?.spent).toMatchObject({ replies: 0, tokens: 0 });
    expect(silent.spendStopVerdict).toBeNull();
  });

  it('counts a reply once however often the node sees it, and a bad option is a ConfigurationError', async () => {
    const guard = loopGuard({ spend: { session: { maxTokens: 10_000 } } });
    const reply = aiMessage({ content: 'x', id: 'r1', usage_metadata: usage });
    // the first call waits for the pricing library (a token budget prices what it can too)
    await guard.node({ messages: [reply] });
    await guard.node({ messages: [reply, aiMessage({ content: 'y', id: 'r1', usage_metadata: usage })] });
    await guard.node({ messages: [reply] }); // shorter: read again from the start
    expect(guard.run.spend?.spent).toMatchObject({ replies: 1, tokens: 1050 });
    expect(() => loopGuard({ spend: { session: { maxCostUsd: -1 } } })).toThrow(
      'spend option: "session.maxCostUsd"',
    );
  });
});
