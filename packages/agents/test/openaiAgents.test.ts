import { InMemoryStateMachine } from '@loopguard/core';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoopStoppedError, loopGuard } from '../src/openai-agents/index.js';
import { PROGRESS, PROGRESS_FILES } from './progress.js';

type Reply = { tool: string; args: Record<string, unknown> } | { text: string };

/** A scripted `Model`: call `n` (0-based) answers `script(n)`; every request is kept. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: (call: number) => Reply) {}

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
    return { usage: new Usage(), output };
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
    expect(stateMachine.listContextEntries().map((e) => e.topic)).toEqual(['loop_stop', 'loop_nudge']);
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
