import type { ContextEntryInput } from '@loopguard/core';
import {
  addUsage,
  type CostOf,
  checkSpend,
  type ResolvedSpendOptions,
  SpendLedger,
  type SpendScope,
  type SpendVerdict,
  spendEntry,
} from '@loopguard/core/spend';
import type { SpendRow, SqliteSpendStore } from '@loopguard/sqlite';
import type { HookAgent, HookEvent } from './hookEvent.js';
import { waitForReply } from './replyWait.js';
import { readTranscriptUsage } from './transcriptUsage.js';

/** What {@link guardSpend} needs besides the event. */
export interface SpendGuardContext {
  agent: HookAgent;
  options: ResolvedSpendOptions;
  /** The price book (overrides, then the pricing library), whatever the budget is in. */
  costOf: CostOf;
  /** The project's ledgers. */
  store: SqliteSpendStore;
  /** Writes a warning or stop entry (same transaction as the ledgers). */
  record(entry: ContextEntryInput): void;
  /** Epoch ms. */
  now(): number;
  /** Writes one line to the hook's log (a transcript that cannot be read). */
  log(error: unknown): void;
}

/** The ledger key of a session: `session:<agent>:<session_id>`. */
export function sessionSpendKey(agent: HookAgent, sessionId: string): string {
  return `session:${agent}:${sessionId}`;
}

/** The ledger key of a project's UTC day: `project_day:2026-11-28`. */
export function projectDaySpendKey(at: number): string {
  return `project_day:${new Date(at).toISOString().slice(0, 10)}`;
}

/**
 * The spend guard of one hook event: waits (briefly, {@link waitForReply}) until the session's
 * transcript holds the reply the event follows, reads the replies it gained since the last call,
 * counts each reply once in the session's ledger and the project's day, and judges the budgets
 * after a tool call (at the end of a turn it only counts). A warning or a stop is recorded as a
 * context entry (`spend_warning`, `spend_stop`) with its evidence. An event without a transcript, or a transcript that cannot be read (one log line),
 * counts nothing and answers nothing: the guard fails open.
 * @returns the verdict to answer with, or `undefined`.
 */
export async function guardSpend(
  event: HookEvent,
  context: SpendGuardContext,
): Promise<SpendVerdict | undefined> {
  const path = event.transcriptPath;
  if (path === undefined) return undefined;
  const sessionKey = sessionSpendKey(context.agent, event.sessionId);
  if (event.replyMarker !== undefined)
    await waitForReply(path, context.store.offsetOf(sessionKey), event.replyMarker);
  const now = context.now();
  const dayKey = projectDaySpendKey(now);
  const keys = context.options.projectDay === undefined ? [sessionKey] : [sessionKey, dayKey];
  return context.store.update(keys, (rows) => {
    const session = rows.get(sessionKey);
    let read: ReturnType<typeof readTranscriptUsage>;
    try {
      read = readTranscriptUsage(path, session?.offset ?? 0, context.agent);
    } catch (error) {
      context.log(error);
      return { next: new Map(), result: undefined };
    }
    const scopes: SpendScope[] = keys.map((key) => ({
      kind: key === sessionKey ? 'session' : 'project_day',
      label: key === sessionKey ? 'this session' : 'this project today',
      ledger: new SpendLedger(rows.get(key)?.ledger),
    }));
    for (const usage of read.records) addUsage(scopes, usage, context.costOf, now);
    // At the end of a turn nobody would hear a warning (and it is given once): count only, and
    // judge at the next tool call.
    const verdict = event.kind === 'agent_stop' ? undefined : checkSpend(scopes, context.options, now);
    if (verdict !== undefined) {
      context.record(
        spendEntry(verdict, {
          taskId: `${context.agent}:${event.sessionId}`,
          detectedAt: now,
          metadata: {
            sessionId: event.sessionId,
            agent: context.agent,
            projectDir: event.projectDir,
            hookEvent: event.eventName,
            transcriptPath: path,
          },
        }),
      );
    }
    const next = new Map<string, SpendRow>();
    for (const [i, key] of keys.entries()) {
      const ledger = (scopes[i] as SpendScope).ledger.snapshot();
      const caps = key === sessionKey ? context.options.session : context.options.projectDay;
      next.set(key, { ledger, offset: key === sessionKey ? read.offset : 0, caps });
    }
    return { next, result: verdict };
  });
}
