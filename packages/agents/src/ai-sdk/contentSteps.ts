import type { Step } from '@loopguard/core/steps';
import { errorText, outputText } from '../shared/stepText.js';

/** The part of an AI SDK content part the adapter reads (`StepResult.content`). */
export interface ContentPartLike {
  /** The part's kind: `text`, `tool-call`, `tool-result`, `tool-error`, `reasoning`, …. */
  readonly type: string;
  /** A text part's words. */
  readonly text?: string;
  /** The call a `tool-call`, `tool-result` or `tool-error` part belongs to. */
  readonly toolCallId?: string;
  /** The tool called. */
  readonly toolName?: string;
  /** A call's arguments, as the model wrote them. */
  readonly input?: unknown;
  /** A `tool-result` part's value. */
  readonly output?: unknown;
  /** A `tool-error` part's error. */
  readonly error?: unknown;
}

/**
 * The loopguard steps of one AI SDK step, from its `content`: reasoning and text parts become
 * messages; each `tool-call` becomes an action followed by its own `tool-result` (an observation) or
 * `tool-error` (an observation with `error: true`), so that parallel calls form one turn each.
 * @example
 * contentSteps([{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { cmd: 'ls' } },
 *   { type: 'tool-error', toolCallId: 'c1', toolName: 'bash', error: new Error('denied') }]);
 * // [{ type: 'action', tool: 'bash', input: { cmd: 'ls' } }, { type: 'observation', tool: 'bash', output: 'denied', error: true }]
 */
export function contentSteps(content: readonly ContentPartLike[]): Step[] {
  const results = new Map<string, ContentPartLike>();
  const calls = new Set<string>();
  for (const part of content) {
    if (part.toolCallId === undefined) continue;
    if (part.type === 'tool-call') calls.add(part.toolCallId);
    if (isResult(part)) results.set(part.toolCallId, part);
  }
  const steps: Step[] = [];
  for (const part of content) {
    if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string') {
      if (part.text.trim() !== '') steps.push({ type: 'message', text: part.text });
    } else if (part.type === 'tool-call' && typeof part.toolName === 'string' && part.toolName !== '') {
      steps.push({ type: 'action', tool: part.toolName, input: part.input ?? {} });
      const result = part.toolCallId === undefined ? undefined : results.get(part.toolCallId);
      if (result !== undefined) steps.push(observation(result));
    } else if (isResult(part) && (part.toolCallId === undefined || !calls.has(part.toolCallId))) {
      steps.push(observation(part)); // a result whose call is not in this step
    }
  }
  return steps;
}

function isResult(part: ContentPartLike): boolean {
  return part.type === 'tool-result' || part.type === 'tool-error';
}

function observation(part: ContentPartLike): Step {
  const failed = part.type === 'tool-error';
  return {
    type: 'observation',
    ...(typeof part.toolName === 'string' ? { tool: part.toolName } : {}),
    output: failed ? errorText(part.error) : outputText(part.output),
    ...(failed ? { error: true } : {}),
  };
}
