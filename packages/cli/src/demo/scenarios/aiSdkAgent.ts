import { messageWords } from '@loopguard/core/internal';
import { z } from 'zod';
import type { DemoScenario } from '../DemoContext.js';
import { verdictWords } from '../verdictWords.js';

const TASK = 'T10.1.1';
const MISSING = 'deploy/config.yaml';
/** The looping run's session, as `status` lists it (agent `ai-sdk`). */
const LOOPING_RUN = 'demo-ai-sdk-run';
/** A run that reads the file once and answers: a session too, with no loop found. */
const CLEAN_RUN = 'demo-ai-sdk-clean-run';

/**
 * Step level, in an agent built on the Vercel AI SDK: `generateText` with the SDK's own mock model
 * (`MockLanguageModelV4` from `ai/test`), scripted to read a missing file again and again, guarded
 * by `loopGuard()` from `@loopguard/agents/ai-sdk` with the demo's database as its state machine.
 * The nudge goes into the model's next prompt; the model ignores it and the run is stopped. A second
 * run that reads a file once and answers is listed as a session too ("no loop found"). The AI SDK is
 * loaded only when the scenario runs.
 */
export const aiSdkAgent: DemoScenario = {
  title: 'AI SDK agent guarded by @loopguard/agents: generateText nudged, then stopped',
  tasks: [[TASK, 'Summarise the deployment config', 'in_progress']],
  async run(ctx) {
    const { generateText, tool } = await import('ai');
    const { MockLanguageModelV4 } = await import('ai/test');
    const { loopGuard } = await import('@loopguard/agents/ai-sdk');
    const guard = loopGuard({
      taskId: TASK,
      runId: LOOPING_RUN,
      stateMachine: ctx.database.stateMachine,
      clock: ctx.clock,
    });
    ctx.watch(guard.run.detector); // its nudge and stop reach the dashboard's live feed
    guard.run.detector.on('stepLoopDetected', (verdict) =>
      ctx.print(`      -> ${verdictWords(verdict)}: ${messageWords(verdict.message?.split('\n')[0] ?? '')}`),
    );
    const usage = {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    };
    let calls = 0;
    const model = new MockLanguageModelV4({
      // a model that does not listen: the same tool call every time
      doGenerate: async () => ({
        content: [
          {
            type: 'tool-call',
            toolCallId: `call-${++calls}`,
            toolName: 'readFile',
            input: JSON.stringify({ path: MISSING }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }),
    });
    const readFile = tool({
      description: 'Read a file of the repository',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }): Promise<string> => {
        throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      },
    });
    const result = await generateText({
      model,
      tools: { readFile },
      prompt: `Summarise ${MISSING}`,
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
      onStepFinish: async (step) => {
        const failure = step.content.find((part) => part.type === 'tool-error');
        const error = failure?.type === 'tool-error' ? String(failure.error) : 'ok';
        ctx.print(`   Call ${step.stepNumber + 1}: readFile(${MISSING}) -> ${error}`);
        await ctx.pause();
      },
    });
    const prompts = model.doGenerateCalls.map((call) => JSON.stringify(call.prompt));
    const nudged = prompts.findIndex((prompt) => prompt.includes('Loop detected'));
    ctx.print(
      `   generateText ended after ${result.steps.length} model calls (finishReason ${result.finishReason}); the nudge was in prompt ${nudged + 1} of ${prompts.length}`,
    );
    ctx.print(
      `   ${guard.run.nudges.length} nudge and 1 stop recorded for the ai-sdk session ${LOOPING_RUN} (loop_nudge, loop_stop)`,
    );
    // a run that never loops: a session all the same, which `status` lists with no loop found
    const clean = loopGuard({
      taskId: CLEAN_RUN,
      runId: CLEAN_RUN,
      stateMachine: ctx.database.stateMachine,
      clock: ctx.clock,
    });
    let answered = false;
    const cleanRun = await generateText({
      model: new MockLanguageModelV4({
        doGenerate: async () => {
          const first = !answered;
          answered = true;
          return {
            content: first
              ? [
                  {
                    type: 'tool-call',
                    toolCallId: 'call-1',
                    toolName: 'readFile',
                    input: '{"path":"README.md"}',
                  },
                ]
              : [{ type: 'text', text: 'The README describes the deployment.' }],
            finishReason: first
              ? { unified: 'tool-calls', raw: 'tool_calls' }
              : { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          };
        },
      }),
      tools: { readFile: tool({ ...readFile, execute: async () => '# Deployment' }) },
      prompt: 'Summarise README.md',
      prepareStep: clean.prepareStep,
      stopWhen: clean.stopWhen,
      onEnd: clean.onEnd, // counts the final answer and tells the store the run ended
    });
    ctx.print(
      `   Another run reads README.md once and answers (finishReason ${cleanRun.finishReason}): the ai-sdk session ${CLEAN_RUN}, no loop found, 1 tool call ran`,
    );
  },
};
