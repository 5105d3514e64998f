import type { SpendVerdict } from '@loopguard/core/spend';
import type { StepVerdict } from '@loopguard/core/steps';
import {
  isStepCount,
  type ModelMessage,
  type PrepareStepFunction,
  type PrepareStepResult,
  type StepResult,
  type StopCondition,
  type ToolSet,
} from 'ai';
import type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
import { RunGuard } from '../shared/RunGuard.js';
import { after, whenSettled } from '../shared/whenSettled.js';
import { contentSteps } from './contentSteps.js';
import { stepUsage, type UsageOfStep } from './stepUsage.js';

/** Options of the AI SDK {@link loopGuard}: the detector's, plus the run's own stop conditions and `prepareStep`. */
export interface AiSdkLoopGuardOptions<TOOLS extends ToolSet = ToolSet> extends LoopGuardOptions {
  /**
   * The run's other stop conditions; the guard's {@link AiSdkLoopGuard.stopWhen} holds them after its own.
   * @default isStepCount(20) (the AI SDK's `ToolLoopAgent` default)
   */
  stopWhen?: StopCondition<TOOLS> | StopCondition<TOOLS>[];
  /** The run's own `prepareStep`: called first; the nudge is added to the messages it returns. @default none */
  prepareStep?: PrepareStepFunction<TOOLS>;
}

/**
 * The guard's `prepareStep`: generic, so that it fits a `generateText` call over any tool set.
 * Adds a pending nudge to the step's messages as a user message.
 */
export type GuardPrepareStep = <TOOLS extends ToolSet>(
  input: Parameters<PrepareStepFunction<TOOLS>>[0],
) => PrepareStepResult<TOOLS> | PromiseLike<PrepareStepResult<TOOLS>>;

/** The guard's stop condition: generic, so that it fits a call over any tool set. */
export type GuardStopCondition = <TOOLS extends ToolSet>(
  input: Parameters<StopCondition<TOOLS>>[0],
) => boolean | PromiseLike<boolean>;

/** What {@link loopGuard} returns: the two settings to pass to `generateText` / `streamText`, and the run's state. */
export interface AiSdkLoopGuard {
  /** Pass as `prepareStep`: adds a pending nudge to the step's messages as a user message. */
  readonly prepareStep: GuardPrepareStep;
  /** Pass as `stopWhen`: true once the detector stops the run, and the run's other conditions. */
  readonly stopWhen: GuardStopCondition[];
  /**
   * Pass as `onEnd` (the SDK calls it once every step has finished): the last steps are judged and
   * counted (a final reply calls no `stopWhen`), and the store is told the run ended, so the doors
   * stop reading it `running`. Optional: without it a run reads `running` for 10 minutes after its
   * last tool call.
   */
  readonly onEnd: (event: {
    readonly steps: readonly (Pick<StepResult<ToolSet>, 'content'> & UsageOfStep)[];
  }) => Promise<void> | undefined;
  /** The run's guard: `stopVerdict`, `nudges`, `detector`. */
  readonly run: RunGuard;
  /** The `stop` verdict once the run was stopped, else `null` (`finishReason` is then `tool-calls`). */
  readonly stopVerdict: StepVerdict | null;
  /** The spend guard's stop once the run spent its budget (`spend` option), else `null`. */
  readonly spendStopVerdict: SpendVerdict | null;
}

/**
 * A step-level loop guard for one `generateText` / `streamText` call of the Vercel AI SDK: every
 * finished step's tool calls, tool results (`tool-error` parts as failures), reasoning and text go to
 * one `StepLoopDetector`. A nudge is added to the next step's prompt as a user message (through
 * `prepareStep`; the SDK carries it forward); a stop ends the loop through `stopWhen`. With the
 * `spend` option, each step's `usage` is counted against the budgets: the warning goes in like a
 * nudge, the stop ends the loop through `stopWhen` the same way (`spendStopVerdict`).
 *
 * @throws ConfigurationError naming a bad detector option.
 * @example
 * const guard = loopGuard({ taskId: 'T1' });
 * const result = await generateText({ model, tools, prompt, prepareStep: guard.prepareStep, stopWhen: guard.stopWhen });
 * if (guard.stopVerdict) console.log(guard.stopVerdict.message);
 */
export function loopGuard<TOOLS extends ToolSet = ToolSet>(
  options: AiSdkLoopGuardOptions<TOOLS> = {},
): AiSdkLoopGuard {
  const { stopWhen = isStepCount(20), prepareStep: ownPrepareStep, ...detectorOptions } = options;
  const run = new RunGuard(detectorOptions, 'ai-sdk');
  let observed = 0;
  /** Judges the steps finished since the last call (their actions and their usage); a pending write when there is one. */
  const catchUp = (
    steps: readonly (Pick<StepResult<ToolSet>, 'content'> & UsageOfStep)[],
  ): Promise<void> | undefined => {
    let usage: Promise<void> | undefined;
    for (; observed < steps.length; observed++) {
      const finished = steps[observed] as Pick<StepResult<ToolSet>, 'content'> & UsageOfStep;
      for (const step of contentSteps(finished.content)) run.observe(step);
      usage = run.observeUsage(stepUsage(finished)) ?? usage;
    }
    return usage === undefined ? run.settled() : usage.then(() => run.settled());
  };
  const loopStopped: GuardStopCondition = ({ steps }) => whenSettled(catchUp(steps), () => run.stopped);
  type Settings = { messages?: ModelMessage[] } | undefined;
  const prepareStep = ((input: Parameters<PrepareStepFunction<ToolSet>>[0]) =>
    whenSettled(catchUp(input.steps), () =>
      // The run's own prepareStep was written for the same tool set as this call.
      after(ownPrepareStep?.(input as never) as Settings | PromiseLike<Settings>, (own) =>
        withNudge(own, input.messages),
      ),
    )) as GuardPrepareStep;
  /** The step's settings with the pending nudge, if any, added to its messages. */
  const withNudge = (own: Settings, messages: ModelMessage[]): Settings => {
    const nudge = run.takeNudge();
    if (nudge === null) return own ?? {};
    return { ...own, messages: [...(own?.messages ?? messages), { role: 'user', content: nudge }] };
  };

  const others = (Array.isArray(stopWhen) ? stopWhen : [stopWhen]) as unknown as GuardStopCondition[];
  return {
    prepareStep,
    stopWhen: [loopStopped, ...others],
    onEnd: ({ steps }) => {
      const caught = catchUp(steps);
      return caught === undefined ? run.end() : caught.then(() => run.end());
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
