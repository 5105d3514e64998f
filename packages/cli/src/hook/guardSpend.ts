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
import { claudeSubagentTranscript, claudeSubagentTranscripts } from './claudeSubagent.js';
import { codexSubagentRollouts, spawnedAgentId } from './codexSubagent.js';
import { geminiSubagentChats } from './geminiSubagent.js';
import type { HookAgent, HookEvent } from './hookEvent.js';
import { endsWithReadReply, LOOKBACK_BYTES, REPLY_WAIT_MS, waitForReply } from './replyWait.js';
import { entrySession, sessionTaskId } from './sessionEntries.js';
import { MAX_SUBAGENT_TRANSCRIPTS, type SubagentTranscript } from './subagentTranscripts.js';
import { MAX_TRANSCRIPT_READ_BYTES, readTranscriptUsage } from './transcriptUsage.js';

/** What {@link guardSpend} needs besides the event. */
export interface SpendGuardContext {
  /** The CLI whose session is counted. */
  agent: HookAgent;
  /** The project's `spend` options, validated. */
  options: ResolvedSpendOptions;
  /** The price book (overrides, then the pricing library), whatever the budget is in. */
  costOf: CostOf;
  /** The project's ledgers. */
  store: SqliteSpendStore;
  /** Count the replies and judge nothing (the loop guard stopped the session at this event). @default false */
  countOnly?: boolean;
  /** The session's tool call the event is about (1-based, as the loop guard counts them), for the entries. @default none */
  toolCall?: number;
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
 * The ledger key of a subagent's own transcript (its replies, and how far it was read):
 * `subagent:<agent>:<session_id>:<agent_id>`. The session is in it because Claude Code's subagent
 * transcripts are found by their file names, which the model of any session can write: a file named
 * after another session's subagent must not move that subagent's offset (its replies would go uncounted).
 */
export function subagentSpendKey(agent: HookAgent, sessionId: string, agentId: string): string {
  return `subagent:${agent}:${sessionId}:${agentId}`;
}

/** A transcript the guard reads, and the ledger row that keeps how far it was read. */
interface TranscriptSource {
  path: string;
  key: string;
}

/**
 * The spend guard of one hook event: waits (briefly, {@link waitForReply}) until the transcript the
 * event's run writes holds the reply the event follows, reads the replies the session's transcripts
 * gained since the last call (the main thread's and, for Claude Code, each subagent's: see
 * {@link sessionTranscripts}), counts each reply once in the session's ledger and the project's
 * day, and judges the budgets after a tool call (at the end of a turn, and at the loop guard's stop,
 * it only counts). A warning or
 * a stop is recorded as a context entry (`spend_warning`, `spend_stop`) with its evidence. An event
 * without a transcript counts nothing and answers nothing; a transcript that cannot be read (one
 * log line) counts nothing of its own: the guard fails open.
 * @returns the verdict to answer with, or `undefined`.
 */
export async function guardSpend(
  event: HookEvent,
  context: SpendGuardContext,
): Promise<SpendVerdict | undefined> {
  const path = event.transcriptPath;
  if (path === undefined) return undefined;
  // A subagent's replies count against the session's budget: one ledger for the session.
  const session = event.parentSessionId ?? event.sessionId;
  const sessionKey = sessionSpendKey(context.agent, session);
  const main: TranscriptSource = { path, key: sessionKey };
  const own = ownTranscript(context.agent, event, main);
  if (event.replyMarker !== undefined) {
    const read = context.store.offsetOf(own.key);
    // a turn's last reply, read at another event of the turn: counted, nothing to wait for
    const counted =
      event.replyUnread === true && (await endsWithReadReply(own.path, read, event.replyMarker));
    if (!counted)
      await waitForReply(
        own.path,
        read,
        event.replyMarker,
        REPLY_WAIT_MS,
        event.replyUnread === true ? 0 : LOOKBACK_BYTES,
      );
  }
  const now = context.now();
  // a Codex subagent is its session's from the main thread's `spawn_agent` result on: one that makes
  // no tool call sends no event of its own (sess66)
  const spawned =
    context.agent === 'codex' && event.kind === 'after_tool' && event.parentSessionId === undefined
      ? spawnedAgentId(event.output)
      : undefined;
  const spawnedKey = spawned === undefined ? undefined : subagentSpendKey(context.agent, session, spawned);
  const sources = sessionTranscripts(context.agent, session, main, own, context.store, now, spawned);
  const dayKey = projectDaySpendKey(now);
  const ledgerKeys = context.options.projectDay === undefined ? [sessionKey] : [sessionKey, dayKey];
  const keys = [...ledgerKeys, ...sources.filter((s) => s !== main).map((s) => s.key)];
  if (spawnedKey !== undefined && !keys.includes(spawnedKey)) keys.push(spawnedKey);
  return context.store.update(keys, (rows) => {
    const scopes: SpendScope[] = ledgerKeys.map((key) => ({
      kind: key === sessionKey ? 'session' : 'project_day',
      label: key === sessionKey ? 'this session' : 'this project today',
      ledger: new SpendLedger(rows.get(key)?.ledger),
    }));
    const next = new Map<string, SpendRow>();
    let sessionOffset = rows.get(sessionKey)?.offset ?? 0;
    let readOne = false;
    // one call reads about one transcript's bound in all: the rest is read at the next calls
    let budget = MAX_TRANSCRIPT_READ_BYTES;
    for (const source of sources) {
      if (budget <= 0) break;
      const from = rows.get(source.key)?.offset ?? 0;
      let read: ReturnType<typeof readTranscriptUsage>;
      try {
        read = readTranscriptUsage(source.path, from, context.agent, undefined, event.model);
      } catch (error) {
        // a subagent with no transcript of its own (yet) has nothing to count: not a failure
        if (source === main || (error as NodeJS.ErrnoException).code !== 'ENOENT') context.log(error);
        continue;
      }
      readOne = true;
      budget -= read.offset >= from ? read.offset - from : read.offset;
      // a subagent's transcript keeps its own ledger too: what that run spent
      const ownLedger = source === main ? undefined : new SpendLedger(rows.get(source.key)?.ledger);
      for (const usage of read.records) {
        // a Codex reply's id (its time and its thread's running total) keeps a fork's copy once in
        // the project's day; in the session's ledger it is its thread's: twin subagents' replies of
        // one millisecond and one running total are two (trust54)
        const threads = context.agent === 'codex' && usage.replyId !== undefined;
        const inSession = threads ? { ...usage, replyId: `${usage.replyId}@${source.key}` } : usage;
        addUsage(scopes.slice(0, 1), inSession, context.costOf, now);
        addUsage(scopes.slice(1), usage, context.costOf, now);
        ownLedger?.add(usage, context.costOf, now);
      }
      if (ownLedger === undefined) sessionOffset = read.offset;
      else next.set(source.key, { ledger: ownLedger.snapshot(), offset: read.offset });
    }
    // a subagent just spawned is remembered, its rollout read from its start at the next events
    if (spawnedKey !== undefined && !next.has(spawnedKey) && !rows.has(spawnedKey))
      next.set(spawnedKey, { ledger: new SpendLedger().snapshot(), offset: 0 });
    if (!readOne) return { next, result: undefined };
    // At the end of a turn nobody would hear a warning (and it is given once): count only, and
    // judge at the next tool call.
    const verdict =
      event.kind === 'agent_stop' || context.countOnly === true
        ? undefined
        : checkSpend(scopes, context.options, now);
    if (verdict !== undefined) recordVerdict(verdict, event, context, now);
    for (const [i, key] of ledgerKeys.entries()) {
      const ledger = (scopes[i] as SpendScope).ledger.snapshot();
      const caps = key === sessionKey ? context.options.session : context.options.projectDay;
      next.set(key, { ledger, offset: key === sessionKey ? sessionOffset : 0, caps });
    }
    return { next, result: verdict };
  });
}

/**
 * Records a warning or stop entry of the event's run, with its evidence and where it fell: a
 * subagent's event is its run's (its id, `parentSessionId`, its call), as its loop entries are, so
 * that the run the budget stopped is the one each door and its transcript say (codex64); the
 * budget stays its session's.
 */
function recordVerdict(
  verdict: SpendVerdict,
  event: HookEvent,
  context: Pick<SpendGuardContext, 'agent' | 'toolCall' | 'record'>,
  now: number,
): void {
  context.record(
    spendEntry(verdict, {
      taskId: sessionTaskId(context.agent, event.sessionId),
      detectedAt: now,
      metadata: {
        ...entrySession(context.agent, event),
        ...(context.toolCall === undefined ? {} : { toolCall: context.toolCall }),
        ...(event.transcriptPath === undefined ? {} : { transcriptPath: event.transcriptPath }),
      },
    }),
  );
  // A Claude Code subagent's stop is its session's too: the budget is the session's, and Claude Code
  // ends the subagent alone. Its main thread may end its turn with no further call (a subagent in
  // the background), which no later event would stop: its row says its budget stopped it, at no
  // call of its own (sess66). A Codex session keeps its stop at its main thread's next call (each
  // judged before it runs), where its rollout holds it.
  if (verdict.action === 'stop' && context.agent === 'claude' && event.parentSessionId !== undefined) {
    const { parentSessionId, agentType: _type, ...main } = event;
    recordVerdict(
      verdict,
      { ...main, sessionId: parentSessionId },
      { agent: context.agent, record: context.record },
      now,
    );
  }
}

/**
 * The stop of a session already at its budget, judged before a tool call from its ledgers alone (no
 * transcript is read, the ledgers stay as they are), recorded as a stop entry at the call it denies
 * (as Codex's every denial is), or `undefined`. Claude Code (2.1.330) ignores `continue: false`
 * after a failing call (`PostToolUseFailure`), and a budget lowered in the configuration between
 * two calls was crossed at none: the session's next call is where its spend stop holds, denied
 * before it runs, as a loop stop's every later call is. The configuration's budget now is the one judged.
 * A project's day at its budget stops every session of the project before its calls, a new one's first.
 */
export function spentOut(
  event: HookEvent,
  context: Pick<SpendGuardContext, 'agent' | 'options' | 'store' | 'now' | 'toolCall' | 'record'>,
): SpendVerdict | undefined {
  const sessionKey = sessionSpendKey(context.agent, event.parentSessionId ?? event.sessionId);
  const now = context.now();
  const dayKey = projectDaySpendKey(now);
  const keys = context.options.projectDay === undefined ? [sessionKey] : [sessionKey, dayKey];
  return context.store.update(keys, (rows) => {
    // a session that has counted nothing yet is at no budget of its own, but a project's day spent is
    // every session's: a new session (the model's own `claude -p`) is denied its first call (trust46)
    if (!rows.has(sessionKey) && !rows.has(dayKey)) return { next: new Map(), result: undefined };
    const scopes: SpendScope[] = keys.map((key) => ({
      kind: key === sessionKey ? 'session' : 'project_day',
      label: key === sessionKey ? 'this session' : 'this project today',
      ledger: new SpendLedger(rows.get(key)?.ledger),
    }));
    // warnings are given after a call: only a stop counts here, and the ledgers stay as they are
    const verdict = checkSpend(scopes, context.options, now);
    if (verdict?.action !== 'stop') return { next: new Map(), result: undefined };
    recordVerdict(verdict, event, context, now);
    return { next: new Map(), result: verdict };
  });
}

/**
 * The transcript the event's own run writes: a subagent's own (Codex names it in the event, Claude
 * Code keeps it beside the session's), else the session's.
 */
function ownTranscript(agent: HookAgent, event: HookEvent, main: TranscriptSource): TranscriptSource {
  if (event.parentSessionId === undefined) return main;
  const key = subagentSpendKey(agent, event.parentSessionId, event.sessionId);
  if (agent === 'codex') return { path: main.path, key };
  if (agent !== 'claude') return main;
  const path = claudeSubagentTranscript(main.path, event.sessionId);
  return path === undefined ? main : { path, key };
}

/**
 * The transcripts to read at this call: the session's, the event's own run's, and (Claude Code,
 * Codex at a main thread's event, Gemini CLI: its subagents' events name only the session's chat)
 * those of the session's other subagents that changed size since they were last read (their
 * offset, read outside the transaction, is only a hint of where to look). So a subagent's last
 * reply, written after its last tool call, is counted at the session's next event, whichever
 * thread's, and each reply once (each transcript is read on from where it was left).
 */
function sessionTranscripts(
  agent: HookAgent,
  session: string,
  main: TranscriptSource,
  own: TranscriptSource,
  store: SqliteSpendStore,
  now: number,
  spawned: string | undefined,
): TranscriptSource[] {
  // a Codex subagent's event names its own rollout only: the session's is read at its own events
  if (own.path === main.path && own.key !== main.key) return [own];
  const sources = own === main ? [main] : [main, own];
  for (const transcript of subagentTranscripts(agent, session, main.path, store, now, spawned)) {
    const key = subagentSpendKey(agent, session, transcript.agentId);
    if (key !== own.key && transcript.size !== store.offsetOf(key))
      sources.push({ path: transcript.path, key });
  }
  return sources;
}

/**
 * The session's subagents' transcripts: Claude Code's, listed from their folder; Gemini CLI's chats,
 * filed under the session's; Codex's, the rollouts of the subagents whose own events made their rows,
 * or the main thread's `spawn_agent` result (`spawned`: this event's), in the days' folders up to `now`.
 */
function subagentTranscripts(
  agent: HookAgent,
  session: string,
  mainPath: string,
  store: SqliteSpendStore,
  now: number,
  spawned: string | undefined,
): SubagentTranscript[] {
  if (agent === 'claude') return claudeSubagentTranscripts(mainPath);
  if (agent === 'gemini') return geminiSubagentChats(mainPath, session);
  const prefix = subagentSpendKey(agent, session, '');
  const known = store
    .scopesUnder(prefix, MAX_SUBAGENT_TRANSCRIPTS)
    .map((row) => row.scope.slice(prefix.length));
  return codexSubagentRollouts(mainPath, spawned === undefined ? known : [...known, spawned], now);
}
