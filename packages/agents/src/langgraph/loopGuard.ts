import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { END } from '@langchain/langgraph';
import type { SpendVerdict } from '@loopguard/core/spend';
import type { StepVerdict } from '@loopguard/core/steps';
import type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
import { RunGuard } from '../shared/RunGuard.js';
import { whenSettled } from '../shared/whenSettled.js';
import { messageSteps } from './messageSteps.js';
import { messageUsage } from './messageUsage.js';

/** The state the guard's node reads: a `messages` channel (as in `MessagesAnnotation`). */
export interface MessagesState {
  /** The conversation so far: the guard reads the new messages of each step. */
  messages: BaseMessage[];
}

/** What {@link loopGuard} returns: a graph node, a conditional-edge router, and the run's state. */
export interface LangGraphLoopGuard {
  /**
   * A node to add after the tool node (`graph.addNode('loopguard', guard.node)`): judges the
   * messages added since it last ran and, on a nudge, adds it to `messages` as a `HumanMessage`.
   */
  readonly node: (
    state: MessagesState,
  ) => { messages?: BaseMessage[] } | Promise<{ messages?: BaseMessage[] }>;
  /**
   * A conditional-edge router from that node: `END` once the run was stopped, else `next`
   * (`graph.addConditionalEdges('loopguard', guard.route('agent'), ['agent', END])`).
   */
  route<N extends string>(next: N): (state: MessagesState) => N | typeof END;
  /** The run's guard: `stopVerdict`, `nudges`, `detector`. */
  readonly run: RunGuard;
  /** The `stop` verdict once the run was stopped, else `null` (the graph then ended through `END`). */
  readonly stopVerdict: StepVerdict | null;
  /** The spend guard's stop once the run spent its budget (`spend` option), else `null` (the graph then ended through `END`). */
  readonly spendStopVerdict: SpendVerdict | null;
}

/**
 * A step-level loop guard for one LangGraph.js run (one `invoke` / `stream` of a compiled graph):
 * its node reads the `messages` channel — `AIMessage` text and `tool_calls`, `ToolMessage` results
 * (`status: 'error'` as a failure) — into one `StepLoopDetector`; a nudge is added to the state as
 * a `HumanMessage`, and the router sends a stopped run to `END` (long before `recursionLimit`).
 * With the `spend` option, the `usage_metadata` of each `AIMessage` the node reads is counted
 * against the budgets ({@link messageUsage}): the warning goes in like a nudge, the stop routes to
 * `END` the same way (`spendStopVerdict`). The node runs after the tool node, so a final reply that
 * calls no tool is not counted.
 *
 * @throws ConfigurationError naming a bad detector option.
 * @example
 * const guard = loopGuard({ taskId: 'T1' });
 * graph.addNode('loopguard', guard.node).addEdge('tools', 'loopguard')
 *   .addConditionalEdges('loopguard', guard.route('agent'), ['agent', END]);
 */
export function loopGuard(options: LoopGuardOptions = {}): LangGraphLoopGuard {
  const run = new RunGuard(options, 'langgraph');
  const tools = new Map<string, string>();
  let seen = 0;
  return {
    node: (state) => {
      const messages = state.messages ?? [];
      // The channel grows by each turn's messages; a shorter one (messages removed) starts over.
      if (messages.length < seen) seen = 0;
      const added = messages.slice(seen);
      for (const step of messageSteps(added, tools)) run.observe(step);
      const usage = run.observeUsage(messageUsage(added));
      seen = messages.length;
      const written = () => run.settled();
      return whenSettled(usage === undefined ? written() : usage.then(written), () => {
        const nudge = run.stopped ? null : run.takeNudge();
        if (nudge === null) return {};
        seen += 1; // the nudge itself: a HumanMessage, which gives no step
        return { messages: [new HumanMessage(nudge)] };
      });
    },
    route: (next) => () => (run.stopped ? END : next),
    run,
    get stopVerdict() {
      return run.stopVerdict;
    },
    get spendStopVerdict() {
      return run.spend?.stopVerdict ?? null;
    },
  };
}
