import type {
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookJSONOutput,
  SDKMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { ClaudeRunUsage, type SpendVerdict } from '@loopguard/core/spend';
import { ClaudeCodeSteps, claudeToolResponseText, type StepVerdict } from '@loopguard/core/steps';
import type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
import { RunGuard } from '../shared/RunGuard.js';

/** The `hooks` option of the Claude Agent SDK's `query()`. */
export type ClaudeHooks = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

/** Options of the Claude Agent SDK {@link loopGuard}: the detector's, plus the run's own hooks. */
export interface ClaudeAgentLoopGuardOptions extends LoopGuardOptions {
  /** The run's own hooks; the guard's are added after them in {@link ClaudeAgentLoopGuard.hooks}. @default {} */
  hooks?: ClaudeHooks;
}

/** What {@link loopGuard} returns: the hooks to pass to `query()`, a message filter, and the run's state. */
export interface ClaudeAgentLoopGuard {
  /** Pass as `options.hooks`: `PreToolUse` (denies tools after a stop), `PostToolUse` and `PostToolUseFailure`. */
  readonly hooks: ClaudeHooks;
  /**
   * Wrap the `query()` stream to judge the assistant's text too: its last text of a turn (a reply
   * that calls no tool), as `loopguard hook claude`'s `Stop` and `scan` read it; narration before a
   * tool call and `thinking` are no steps. With the `spend` option it is where the usage is read:
   * each `assistant` message's `message.usage`, `message.id` (a reply comes as one message per
   * content block: counted once) and `message.model`, then what the `result` message's final counts
   * add (the output tokens the assistant messages report only as they started: `ClaudeRunUsage`).
   * Optional without `spend`. Yields every
   * message unchanged.
   */
  watch<M extends SDKMessage>(messages: AsyncIterable<M>): AsyncGenerator<M, void, undefined>;
  /** The run's guard: `stopVerdict`, `nudges`, `detector`. */
  readonly run: RunGuard;
  /** The `stop` verdict once the run was stopped, else `null`. */
  readonly stopVerdict: StepVerdict | null;
  /** The spend guard's stop once the run spent its budget (`spend` option, read by {@link watch}), else `null`. */
  readonly spendStopVerdict: SpendVerdict | null;
}

const STOP_NOTE = 'loopguard stopped this run';

/**
 * A step-level loop guard for one Claude Agent SDK `query()`: every tool call and its result
 * (`PostToolUse`; `PostToolUseFailure` as a failure) goes to one `StepLoopDetector`. A nudge is the
 * `PostToolUse` hook's `additionalContext`, which Claude Code adds to the model's context beside the
 * tool result. A stop answers with `continue: false` (Claude Code ends the run; the `result` message
 * follows) and denies every tool call after it in `PreToolUse`. With the `spend` option, the usage
 * of each reply the stream carries ({@link ClaudeAgentLoopGuard.watch}) is counted against the
 * budgets: the warning goes in like a nudge at the next `PostToolUse`, the stop like a loop's (at
 * the next tool call: `spendStopVerdict`).
 *
 * @throws ConfigurationError naming a bad detector option.
 * @example
 * const guard = loopGuard({ taskId: 'T1' });
 * for await (const message of guard.watch(query({ prompt, options: { hooks: guard.hooks } }))) console.log(message.type);
 * if (guard.stopVerdict) console.log(guard.stopVerdict.message);
 */
export function loopGuard(options: ClaudeAgentLoopGuardOptions = {}): ClaudeAgentLoopGuard {
  const { hooks: ownHooks = {}, ...detectorOptions } = options;
  const run = new RunGuard(detectorOptions, 'claude-agent-sdk');
  /** Why the run is stopped (the loop's stop, else the budget's), or `null`. */
  const stopReason = (): string | null => {
    const loop = run.stopVerdict;
    if (loop !== null) return `${STOP_NOTE}: ${loop.message ?? loop.loopType}`;
    const spend = run.spend?.stopVerdict;
    return spend == null ? null : `${STOP_NOTE}: ${spend.message}`;
  };
  const stopOutput = (reason: string): HookJSONOutput => ({ continue: false, stopReason: reason });

  const preToolUse: HookCallback = async (input) => {
    const reason = stopReason();
    if (reason === null || input.hook_event_name !== 'PreToolUse') return {};
    return {
      ...stopOutput(reason),
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: reason,
      },
    };
  };

  const afterTool: HookCallback = async (input) => {
    if (input.hook_event_name !== 'PostToolUse' && input.hook_event_name !== 'PostToolUseFailure') return {};
    run.observe({ type: 'action', tool: input.tool_name, input: input.tool_input ?? {} });
    const failed = input.hook_event_name === 'PostToolUseFailure';
    run.observe({
      type: 'observation',
      tool: input.tool_name,
      // Claude Code's one translation reads the result, as `loopguard hook claude` and `scan` do
      output: failed ? input.error : claudeToolResponseText(input.tool_response),
      ...(failed ? { error: true } : {}),
    });
    await run.settled();
    const reason = stopReason();
    if (reason !== null) return stopOutput(reason);
    const nudge = run.takeNudge();
    if (nudge === null) return {};
    return { hookSpecificOutput: { hookEventName: input.hook_event_name, additionalContext: nudge } };
  };

  const ours: ClaudeHooks = {
    PreToolUse: [{ hooks: [preToolUse] }],
    PostToolUse: [{ hooks: [afterTool] }],
    PostToolUseFailure: [{ hooks: [afterTool] }],
  };
  const hooks: ClaudeHooks = { ...ownHooks };
  for (const [event, matchers] of Object.entries(ours) as [HookEvent, HookCallbackMatcher[]][]) {
    hooks[event] = [...(ownHooks[event] ?? []), ...matchers];
  }

  return {
    hooks,
    async *watch(messages) {
      // Claude Code's one translation reads the messages; the tool calls come from the hooks above
      const translation = new ClaudeCodeSteps();
      // the same reading as `loopguard run --agent-stream claude`: the replies, then the result's final counts
      const usage = new ClaudeRunUsage();
      for await (const message of messages) {
        const records = usage.event(message);
        if (records.length > 0) await run.observeUsage(records);
        const steps =
          message.type === 'assistant'
            ? translation.assistant(message.message)
            : message.type === 'user'
              ? translation.user(message.message)
              : message.type === 'result'
                ? translation.end()
                : [];
        for (const step of steps) if (step.type === 'message') run.observe(step);
        yield message;
      }
      for (const step of translation.end()) run.observe(step);
      // the messages ended: the run did, and its tally says so
      await run.end();
    },
    run,
    get stopVerdict() {
      return run.stopVerdict;
    },
    get spendStopVerdict() {
      return run.spend?.stopVerdict ?? null;
    },
  };
}
