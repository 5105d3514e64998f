import type { SpendVerdict } from '@loopguard/core/spend';
import type { StepVerdict } from '@loopguard/core/steps';
import type { Agent, CallModelInputFilter, ModelInputData, RunContext } from '@openai/agents';
import { BudgetSpentError } from '../shared/BudgetSpentError.js';
import { LoopStoppedError } from '../shared/LoopStoppedError.js';
import type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
import { RunGuard } from '../shared/RunGuard.js';
import { errorText } from '../shared/stepText.js';
import { after, whenSettled } from '../shared/whenSettled.js';
import { type AgentItemLike, DEFAULT_TOOL_ERROR_MESSAGE, itemSteps } from './itemSteps.js';
import { RunUsage } from './runUsage.js';

/** Options of the OpenAI Agents {@link loopGuard}: the detector's, plus the run's own input filter. */
export interface OpenAIAgentsLoopGuardOptions extends LoopGuardOptions {
  /** The run's own `callModelInputFilter`: called first; the guard reads and extends what it returns. @default none */
  callModelInputFilter?: CallModelInputFilter;
}

/** A function tool's `errorFunction`, as `tool({ errorFunction })` takes it. */
export type GuardToolErrorFunction = (
  context: RunContext<unknown>,
  error: unknown,
  details?: { toolCall?: { callId?: string } },
) => string;

/** What {@link loopGuard} returns: the run option to pass to `run()`, a tool error function, and the run's state. */
export interface OpenAIAgentsLoopGuard {
  /**
   * Pass as the run's `callModelInputFilter`: judges the items added since the last model call, adds
   * a pending nudge as a user message, and throws {@link LoopStoppedError} once the run is stopped.
   */
  readonly callModelInputFilter: CallModelInputFilter;
  /**
   * Optional, per tool (`tool({ ..., errorFunction: guard.errorFunction })`): the model sees the
   * error's message instead of the SDK's fixed text, and the guard knows the call failed. Without
   * it, a result equal to the SDK's default error text counts as a failure.
   */
  readonly errorFunction: GuardToolErrorFunction;
  /** The run's guard: `stopVerdict`, `nudges`, `detector`. */
  readonly run: RunGuard;
  /** The `stop` verdict once the run was stopped, else `null`. */
  readonly stopVerdict: StepVerdict | null;
  /**
   * With the `spend` option: listens to `agent`'s events (`agent_tool_start`, after the model
   * response that asked for the tool; `agent_end`) and counts what the SDK added to the run's
   * `RunContext.usage` since ({@link RunUsage}), priced by the agent's `model` when it is a name;
   * `agent_end` also tells the store the run ended (its tally: the doors stop reading it `running`).
   * Watch every agent a run may hand off to. Returns `agent`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: an agent of any context and output type
  watch<A extends Agent<any, any>>(agent: A): A;
  /** The spend guard's stop once the run spent its budget (`spend` option), else `null`. */
  readonly spendStopVerdict: SpendVerdict | null;
}

/**
 * A step-level loop guard for one OpenAI Agents SDK run: before every model call
 * (`callModelInputFilter`, the SDK's documented hook for editing the model input), the function
 * calls, their results and the assistant's messages added since the last call go to one
 * `StepLoopDetector`. A nudge is added to that model call's input as a user message; a stop
 * throws {@link LoopStoppedError}, and `run()` rejects with it. With the `spend` option and
 * {@link OpenAIAgentsLoopGuard.watch}, the usage of each model response is counted against the
 * budgets: the warning goes into the next model call like a nudge, and the stop throws
 * {@link BudgetSpentError} before the next model call (no money is spent after it).
 *
 * @throws ConfigurationError naming a bad detector option.
 * @example
 * const guard = loopGuard({ taskId: 'T1' });
 * try { await run(agent, 'Fix the test', { callModelInputFilter: guard.callModelInputFilter }); }
 * catch (error) { if (error instanceof LoopStoppedError) console.log(error.verdict.loopType); }
 */
export function loopGuard(options: OpenAIAgentsLoopGuardOptions = {}): OpenAIAgentsLoopGuard {
  const { callModelInputFilter: ownFilter, ...detectorOptions } = options;
  const run = new RunGuard(detectorOptions, 'openai-agents');
  const tools = new Map<string, string>();
  const failedCalls = new Set<string>();
  const failed = (callId: string | undefined, text: string): boolean =>
    (callId !== undefined && failedCalls.has(callId)) || text === DEFAULT_TOOL_ERROR_MESSAGE;
  let seen = 0;
  const usage = new RunUsage();
  /** The usage being counted while the pricing library loads (the first response with a money budget). */
  let pendingUsage: Promise<void> | undefined;
  const count = (context: RunContext<unknown>, model: unknown): void => {
    const record = usage.since(context, model);
    const counted = record === undefined ? undefined : run.observeUsage([record]);
    if (counted === undefined) return;
    const all = Promise.all([pendingUsage, counted]).then(() => undefined);
    pendingUsage = all;
    void all.finally(() => {
      if (pendingUsage === all) pendingUsage = undefined;
    });
  };

  const judge = (modelData: ModelInputData): ModelInputData | Promise<ModelInputData> => {
    const items = modelData.input as readonly AgentItemLike[];
    // The input grows by the items of each turn; a shorter one (a filter that trims) starts over.
    if (items.length < seen) seen = 0;
    for (let index = seen; index < items.length; index++) {
      for (const step of itemSteps([items[index] as AgentItemLike], tools, failed)) run.observe(step);
    }
    seen = items.length;
    const written = () => run.settled();
    return whenSettled(pendingUsage === undefined ? written() : pendingUsage.then(written), () => {
      if (run.stopVerdict !== null) throw new LoopStoppedError(run.stopVerdict);
      const spent = run.spend?.stopVerdict;
      if (spent != null) throw new BudgetSpentError(spent);
      const nudge = run.takeNudge();
      if (nudge === null) return modelData;
      return { ...modelData, input: [...modelData.input, { role: 'user' as const, content: nudge }] };
    });
  };
  const callModelInputFilter: CallModelInputFilter = (args) =>
    after(ownFilter === undefined ? args.modelData : ownFilter(args), judge);
  // The guard only reads the items (a nudge is a new array), so the SDK need not copy them for it;
  // a filter of the run's own keeps the SDK's copy.
  callModelInputFilter.preserveInputIdentity =
    ownFilter === undefined || ownFilter.preserveInputIdentity === true;

  return {
    callModelInputFilter,
    errorFunction: (_context, error, details) => {
      const callId = details?.toolCall?.callId;
      if (callId !== undefined) failedCalls.add(callId);
      return errorText(error);
    },
    run,
    get stopVerdict() {
      return run.stopVerdict;
    },
    watch(agent) {
      const listener = (context: RunContext<unknown>) => count(context, agent.model);
      agent.on('agent_tool_start', listener);
      agent.on('agent_end', (context) => {
        listener(context);
        // the final output: the run ended, and its tally says so once its usage is counted
        if (pendingUsage === undefined) void run.end();
        else void pendingUsage.then(() => run.end());
      });
      return agent;
    },
    get spendStopVerdict() {
      return run.spend?.stopVerdict ?? null;
    },
  };
}
