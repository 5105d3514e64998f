import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
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

/**
 * agent (scripted node) → tools (the prebuilt ToolNode) → loopguard → agent | END. The scripted
 * node answers its call `n` with `script(n)` and keeps the messages it was given.
 */
function scriptedGraph(
  script: (call: number) => Reply,
  guard: LangGraphLoopGuard,
  files: Record<string, string>,
) {
  const seen: BaseMessage[][] = [];
  const agent = async (state: typeof MessagesAnnotation.State) => {
    const call = seen.push([...state.messages]) - 1;
    const reply = script(call);
    const message =
      'text' in reply
        ? new AIMessage(reply.text)
        : new AIMessage({
            content: '',
            tool_calls: [{ id: `call_${call}`, name: reply.tool, args: reply.args }],
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
    expect(stateMachine.listContextEntries().map((e) => e.topic)).toEqual(['loop_stop', 'loop_nudge']);
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
    expect(entries.map((e) => e.topic)).toEqual(['loop_stop', 'loop_nudge']);
    // without a pending write the node answers at once, not with a promise
    expect(loopGuard().node({ messages: [] })).toEqual({});
  });
});
