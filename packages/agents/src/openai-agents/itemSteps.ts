import type { Step } from '@loopguard/core/steps';
import { outputText } from '../shared/stepText.js';

/** The fields of an OpenAI Agents SDK input item the adapter reads (`AgentInputItem`). */
export interface AgentItemLike {
  /** The item's kind: `message`, `function_call`, `function_call_result`, …. */
  readonly type?: string;
  /** A message's author (`assistant`, `user`). */
  readonly role?: string;
  /** A message's content: text, or a list of parts with `text`. */
  readonly content?: unknown;
  /** The function a `function_call` calls. */
  readonly name?: string;
  /** The call a `function_call` or its `function_call_result` belongs to. */
  readonly callId?: string;
  /** A call's arguments, as JSON text. */
  readonly arguments?: string;
  /** A `function_call_result`'s output. */
  readonly output?: unknown;
}

/** What the SDK's default tool error function returns to the model for a tool that threw. */
export const DEFAULT_TOOL_ERROR_MESSAGE = 'An error occurred while running the tool. Please try again.';

function parseArguments(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text; // the model's raw arguments, as it sent them
  }
}

/** A function result's text: a string, or the text parts of structured output. */
function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  const parts = Array.isArray(output) ? output : [output];
  const texts = parts.map((part) => {
    const record = part as { type?: string; text?: unknown } | null;
    return typeof record?.text === 'string' ? record.text : outputText(part);
  });
  return texts.join('\n');
}

/** An assistant message's text: its `output_text` parts joined. */
function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: string; text?: unknown }) =>
      part?.type === 'output_text' && typeof part.text === 'string' ? part.text : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * Turns OpenAI Agents SDK input items into loopguard steps, in order: a `function_call` is an
 * action (its JSON arguments as input), a `function_call_result` an observation of the call it
 * answers (a failure when `failed(callId, text)` says so), an assistant `message` a message.
 * `tools` maps call ids to tool names across calls.
 */
export function itemSteps(
  items: readonly AgentItemLike[],
  tools: Map<string, string>,
  failed: (callId: string | undefined, text: string) => boolean,
): Step[] {
  const steps: Step[] = [];
  for (const item of items) {
    if (item.type === 'function_call' && typeof item.name === 'string' && item.name !== '') {
      if (item.callId !== undefined) tools.set(item.callId, item.name);
      steps.push({ type: 'action', tool: item.name, input: parseArguments(item.arguments) });
    } else if (item.type === 'function_call_result') {
      const output = resultText(item.output);
      const tool = item.callId === undefined ? item.name : (tools.get(item.callId) ?? item.name);
      steps.push({
        type: 'observation',
        ...(tool === undefined ? {} : { tool }),
        output,
        ...(failed(item.callId, output) ? { error: true } : {}),
      });
    } else if (item.role === 'assistant' && (item.type === undefined || item.type === 'message')) {
      const text = messageText(item.content);
      if (text.trim() !== '') steps.push({ type: 'message', text });
    }
  }
  return steps;
}
