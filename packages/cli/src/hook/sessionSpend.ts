import { type CostOf, libraryCostOf, priceBook, type SpendVerdict } from '@loopguard/core/spend';
import { guardSpend, spentOut } from './guardSpend.js';
import type { HookConfig } from './hookConfig.js';
import type { HookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { logFailure } from './hookLog.js';
import { requirePriceLibrary } from './priceLibrary.js';
import { callsMade, parseMemory } from './sessionMemory.js';

/**
 * Why the event's `transcriptPath` must not be read (`undefined`: it may be), by the spend guard
 * and for a skipped call's result: the MCP server reads only the file where Claude Code keeps the
 * session's transcript.
 */
export type TranscriptDistrust = (event: HookEvent) => string | undefined;

/**
 * The spend guard's verdict after a tool call or a turn, when the configuration sets a budget.
 * @param countOnly - the loop guard stopped the session at this event: count its replies, judge nothing.
 */
export async function spendVerdict(
  agent: HookAgent,
  event: HookEvent,
  config: HookConfig,
  database: HookDatabase,
  now: () => number,
  distrust: TranscriptDistrust,
  countOnly: boolean,
): Promise<SpendVerdict | undefined> {
  const options = config.spend;
  // Codex: no reply ends its turn, so its spend stop is every further call denied before it runs.
  if (options === undefined || (event.kind === 'before_tool' && agent !== 'codex' && !countOnly))
    return undefined;
  const reason = distrust(event);
  if (reason !== undefined) {
    logFailure(event.projectDir, agent, event, new Error(`${reason}: its spend is not counted`), now());
    return undefined;
  }
  const toolCall = sessionToolCall(agent, event, database);
  return guardSpend(event, {
    agent,
    options,
    costOf: priceBook(options.prices, lazyLibraryCost()),
    store: database.spend(),
    countOnly,
    ...(toolCall === undefined ? {} : { toolCall }),
    record: (entry) => database.record(entry),
    now,
    log: (error) => logFailure(event.projectDir, agent, event, error, now()),
  });
}

/** The stop of a session already at its budget, before its next call ({@link spentOut}), at the call it denies. */
export function budgetStopBefore(
  agent: HookAgent,
  event: HookEvent,
  options: NonNullable<HookConfig['spend']>,
  database: HookDatabase,
  now: () => number,
): SpendVerdict | undefined {
  const toolCall = sessionToolCall(agent, event, database);
  return spentOut(event, {
    agent,
    options,
    store: database.spend(),
    now,
    record: (entry) => database.record(entry),
    ...(toolCall === undefined ? {} : { toolCall }),
  });
}

/**
 * The run's tool call an event is about, as the loop guard counted it (the call after one, the next
 * before one), so that a spend entry says where it fell as a loop entry does ({@link callsMade}): a
 * subagent's event at its own run's call (its entry is its run's, the budget its session's);
 * `undefined` at the end of a turn.
 */
function sessionToolCall(agent: HookAgent, event: HookEvent, database: HookDatabase): number | undefined {
  if (event.kind === 'agent_stop') return undefined;
  const session = database.sessions.peek({
    agent,
    sessionId: event.sessionId,
    projectDir: event.projectDir,
  });
  // a session with no row has made no call yet: a denial of its first is at call 1
  const made = session === null ? 0 : callsMade(session, parseMemory(session.lastResults));
  return event.kind === 'before_tool' ? made + 1 : made;
}

/**
 * The pricing library's cost, required at the first reply it prices: every budget prices what it
 * can (a token cap too, so that the entries, `recoveries` and the dashboard show dollars), and a
 * call that reads no reply never pays for loading it.
 */
function lazyLibraryCost(): CostOf {
  let library: CostOf | undefined;
  return (record) => {
    library ??= libraryCostOf(requirePriceLibrary());
    return library(record);
  };
}

/**
 * The loop guard's reply with the spend guard's verdict: a stop ends the session, a warning is
 * handed to the model. Codex ends no turn on a hook's reply: the model reading its call refused is
 * told that every further call will be, and what to do (codex58).
 */
export function withSpend(
  agent: HookAgent,
  reply: HookReply,
  verdict: SpendVerdict,
  denied: boolean,
): HookReply {
  if (verdict.action === 'stop') {
    return {
      kind: 'stop',
      denied,
      message:
        agent === 'codex' && denied
          ? `${verdict.message}\nloopguard refuses every further tool call of this session: end your turn with what you have.`
          : verdict.message,
      stopReason: verdict.message.split('\n')[0] ?? '',
    };
  }
  return {
    kind: 'nudge',
    message: reply.kind === 'nudge' ? `${reply.message}\n\n${verdict.message}` : verdict.message,
  };
}
