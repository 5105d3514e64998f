import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { Step } from '@loopguard/core/steps';

/**
 * Turns LangChain messages into loopguard steps, in order: an `AIMessage`'s text is a message and
 * each of its `tool_calls` an action (`name`, `args`); a `ToolMessage` is an observation of the
 * call it answers (`status: 'error'` a failure). Other messages (human, system) give no steps.
 * `tools` maps call ids to tool names across calls.
 */
export function messageSteps(messages: readonly BaseMessage[], tools: Map<string, string>): Step[] {
  const steps: Step[] = [];
  for (const message of messages) {
    if (AIMessage.isInstance(message)) {
      if (message.text.trim() !== '') steps.push({ type: 'message', text: message.text });
      for (const call of message.tool_calls ?? []) {
        if (call.id !== undefined) tools.set(call.id, call.name);
        steps.push({ type: 'action', tool: call.name, input: call.args ?? {} });
      }
    } else if (ToolMessage.isInstance(message)) {
      const tool = tools.get(message.tool_call_id) ?? message.name;
      steps.push({
        type: 'observation',
        ...(tool === undefined ? {} : { tool }),
        output: message.text,
        ...(message.status === 'error' ? { error: true } : {}),
      });
    }
  }
  return steps;
}
