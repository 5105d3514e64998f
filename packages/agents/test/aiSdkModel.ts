import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';

type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type LanguageModelV4StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type LanguageModelV4StreamPart =
  LanguageModelV4StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** One scripted reply of the mock model: a tool call, or a text that ends the run. */
export type ScriptedReply = { tool: string; input: Record<string, unknown> } | { text: string };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function generated(reply: ScriptedReply, call: number): LanguageModelV4GenerateResult {
  if ('text' in reply) {
    return {
      content: [{ type: 'text', text: reply.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    };
  }
  return {
    content: [
      {
        type: 'tool-call',
        toolCallId: `call-${call}`,
        toolName: reply.tool,
        input: JSON.stringify(reply.input),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

function streamed(reply: ScriptedReply, call: number): LanguageModelV4StreamPart[] {
  const result = generated(reply, call);
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  for (const part of result.content) {
    if (part.type === 'text') {
      parts.push(
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: part.text },
        { type: 'text-end', id: 't' },
      );
    } else if (part.type === 'tool-call') parts.push(part);
  }
  parts.push({ type: 'finish', finishReason: result.finishReason, usage });
  return parts;
}

/**
 * The AI SDK's own mock model (`ai/test`), answering call `n` (0-based) with `script(n)`, for both
 * `generateText` (doGenerate) and `streamText` (doStream). Its `doGenerateCalls` / `doStreamCalls`
 * hold every prompt it was sent. `modelId` names the model its steps report (the SDK's default
 * `mock-model-id` has no price).
 */
export function scriptedModel(
  script: (call: number) => ScriptedReply,
  modelId = 'mock-model-id',
): MockLanguageModelV4 {
  let generateCalls = 0;
  let streamCalls = 0;
  return new MockLanguageModelV4({
    modelId,
    doGenerate: async () => {
      const call = generateCalls++;
      return generated(script(call), call);
    },
    doStream: async () => {
      const call = streamCalls++;
      return { stream: convertArrayToReadableStream(streamed(script(call), call)) };
    },
  });
}
