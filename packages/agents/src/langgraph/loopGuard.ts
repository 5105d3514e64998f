import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { END } from '@langchain/langgraph';
import type { StepVerdict } from '@loopguard/core/steps';
import type { LoopGuardOptions } from '../shared/loopGuardOptions.js';
import { RunGuard } from '../shared/RunGuard.js';
import { refuseSpend } from '../shared/RunSpend.js';
import { whenSettled } from '../shared/whenSettled.js';
import { messageSteps } from './messageSteps.js';

/** The state the guard's node reads: a `messages` channel (as in `MessagesAnnotation`). */
export interface MessagesState {
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
}

/**
 * A step-level loop guard for one LangGraph.js run (one `invoke` / `stream` of a compiled graph):
 * its node reads the `messages` channel — `AIMessage` text and `tool_calls`, `ToolMessage` results
 * (`status: 'error'` as a failure) — into one `StepLoopDetector`; a nudge is added to the state as
 * a `HumanMessage`, and the router sends a stopped run to `END` (long before `recursionLimit`).
 *
 * @throws ConfigurationError naming a bad detector option.
 * @example
 * const guard = loopGuard({ taskId: 'T1' });
 * graph.addNode('loopguard', guard.node).addEdge('tools', 'loopguard')
 *   .addConditionalEdges('loopguard', guard.route('agent'), ['agent', END]);
 */
export function loopGuard(options: LoopGuardOptions = {}): LangGraphLoopGuard {
  refuseSpend(options, 'LangGraph');
  const run = new RunGuard(options);
  const tools = new Map<string, string>();
  let seen = 0;
  return {
    node: (state) => {
      const messages = state.messages ?? [];
      // The channel grows by each turn's messages; a shorter one (messages removed) starts over.
      if (messages.length < seen) seen = 0;
      for (const step of messageSteps(messages.slice(seen), tools)) run.observe(step);
      seen = messages.length;
      return whenSettled(run.settled(), () => {
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
  };
}
