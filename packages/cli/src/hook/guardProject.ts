import type { HookSessionSummary } from '@loopguard/sqlite';
import { UnsafeStateError } from '../state/stateFolder.js';
import { readClaudeCall } from './claudeTranscriptCall.js';
import { readRolloutSteps } from './codexRollout.js';
import { batchJudgesAnyCall, guardBatch } from './guardBatch.js';
import { countSpendDenial, guardCodexSession } from './guardCodexSession.js';
import { readGuardConfig } from './guardConfig.js';
import type { GuardContext } from './guardContext.js';
import { countBudgetDenial, countRefusal, guardSession, rememberedResult } from './guardSession.js';
import { guardSpend } from './guardSpend.js';
import { heldAbove, hookSessionHeld } from './heldSessionProject.js';
import type { HookConfig } from './hookConfig.js';
import { type HookDatabase, openHookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { logFailure } from './hookLog.js';
import { hooksRemovedRefusal } from './hooksRemovedCall.js';
import { ownStateRefusal } from './ownStateCall.js';
import { sessionEndedEntry } from './sessionEntries.js';
import { deliveryOf, parseMemory } from './sessionMemory.js';
import type { TranscriptDistrust } from './sessionSpend.js';
import { budgetStopBefore, spendVerdict, withSpend } from './sessionSpend.js';
import { startedSession } from './storedSession.js';
import { terminalShellRefusal } from './terminalShellCall.js';
import { unhookedAgentRefusal } from './unhookedAgentCall.js';

/**
 * Guards one event in its project: reads the `hook` and `spend` sections of the project's
 * configuration (validated when the file changed: {@link readGuardConfig}), opens `.loopguard/state.db` (created on first use; a lock held past
 * `lockTimeoutMs` is an error, not a wait), and runs {@link guardSession} in one transaction with
 * the nudge or stop entry it records (Codex, whose events name no exit code: {@link guardCodexSession}
 * with its rollout; a session this database does not hold, or whose database is refused, or whose
 * folder's configuration switches the hooks off, where a project above already holds it, in that
 * project instead: {@link heldAbove}, where a failure is logged in that project's `hook.log` and
 * answered with silence); then, when a budget is set, {@link guardSpend} after a tool call, at the
 * end of a turn, or (counting only) at the loop guard's stop. A `PostToolBatch` with no call to
 * judge (see {@link batchJudgesAnyCall}) is answered with silence before anything is read.
 * @param open - how the database is opened: once per call by default; the MCP server keeps
 *   its connections ({@link openHookDatabase}'s signature).
 * @param distrust - why the event's transcript must not be read, if so (see {@link TranscriptDistrust}).
 *   @default every transcript is read
 * @throws on any failure: the caller fails open.
 */
export async function guardProject(
  agent: HookAgent,
  event: HookEvent,
  now: () => number,
  open: typeof openHookDatabase = openHookDatabase,
  distrust: TranscriptDistrust = () => undefined,
): Promise<HookReply> {
  // the common reply's batch: every call ran its own hooks, and nothing is left for it to judge
  if (event.kind === 'after_batch' && !batchJudgesAnyCall(event)) return { kind: 'silent' };
  // where this project's database does not hold the session (refused, or no row of it), a project
  // above that already holds it keeps it (trust46): the project that first held a session keeps it
  const heldElsewhere = () => {
    const above = heldAbove(event.projectDir, hookSessionHeld(agent, event, open));
    if (above === undefined) return undefined;
    const moved = { ...event, projectDir: above };
    // its failure is that project's: logged in its hook.log (which the user of its `status` reads),
    // never in the folder below, switched off or refused (qa52); a refused database is the caller's
    // to tell the user of
    return guardProject(agent, moved, now, open, (e) =>
      distrust({ ...e, projectDir: event.projectDir }),
    ).catch((error: unknown): HookReply => {
      if (error instanceof UnsafeStateError) throw error;
      logFailure(above, agent, moved, error, now());
      return { kind: 'silent' };
    });
  };
  // so too where this project's configuration switches the hooks off or fails validation: one
  // brought into the session's folder since (a repository pulled there with it) is not the
  // configuration of the project that holds the session (trust47). Its database is not opened (it
  // is switched off); a session a project above holds was never recorded here (it moves only where
  // this database does not hold it).
  let config: HookConfig;
  try {
    config = await readGuardConfig(event.projectDir);
  } catch (error) {
    const moved = heldElsewhere();
    if (moved === undefined) throw error;
    return moved;
  }
  if (!config.enabled) return (await heldElsewhere()) ?? { kind: 'silent' };
  let database: HookDatabase;
  try {
    database = open(event.projectDir, config.lockTimeoutMs);
  } catch (error) {
    // a refused database holds no session (a repository pulled into the session's folder ships one)
    const moved = error instanceof UnsafeStateError ? heldElsewhere() : undefined;
    if (moved === undefined) throw error;
    return moved;
  }
  let failed = true;
  try {
    const peeked = database.sessions.peek({
      agent,
      sessionId: event.sessionId,
      projectDir: event.projectDir,
    });
    // the session's first call in this database: where a `.git` made since ended the walk here and
    // another session made this database, the project above that holds the session keeps it
    const moved = peeked === null && !holdsParent(agent, event, database) ? heldElsewhere() : undefined;
    if (moved !== undefined) {
      failed = false;
      return await moved;
    }
    if (switchedOff(agent, event, peeked, database)) {
      failed = false;
      return { kind: 'silent' };
    }
    // another agent process under the session's id while the session's own runs (the model's
    // `claude -p --resume <id>`): not the session, whose calls, budget and end it must not touch
    const holder =
      peeked === null
        ? null
        : database.sessions.otherLiveProcess({
            agent,
            sessionId: event.sessionId,
            projectDir: event.projectDir,
          });
    if (holder !== null) {
      failed = false;
      return secondProcessReply(event, holder);
    }
    if (event.kind === 'session_end') {
      // the agent says so: every door says at once that the session is over (a session that made
      // no call is listed nowhere, and gets no entry)
      if (peeked !== null) database.record(sessionEndedEntry(agent, event));
      failed = false;
      return { kind: 'silent' };
    }
    const context: GuardContext = {
      agent,
      detector: config.detector,
      record: (entry) => database.record(entry),
      now,
      ...(agent === 'claude' ? { readCall: (id: string) => skippedResult(event, id, distrust, now) } : {}),
    };
    // Codex's `write_stdin` reaches no hook: a shell it would keep open for typed commands is refused
    const refused =
      ownStateRefusal(event) ??
      hooksRemovedRefusal(event) ??
      unhookedAgentRefusal(event) ??
      (agent === 'codex' ? terminalShellRefusal(event) : undefined);
    if (refused !== undefined) {
      database.sessions.update(
        { agent, sessionId: event.sessionId, projectDir: event.projectDir },
        (session) => countRefusal(event, session, context, refused),
      );
      failed = false;
      return { kind: 'refuse', message: refused };
    }
    if (event.kind === 'after_batch') {
      // the calls no other hook fed (Claude Code refused them before any hook ran)
      const reply = database.sessions.update(
        { agent, sessionId: event.sessionId, projectDir: event.projectDir },
        (session) => guardBatch(event, session, context),
      );
      failed = false;
      return reply;
    }
    const rollout = agent === 'codex' ? event.transcriptPath : undefined;
    const until = event.kind === 'agent_stop' ? undefined : event.callId;
    // A call about to run that repeats no remembered action is answered from the session's memory,
    // without its transaction: nothing is written, and it waits for no other call's write.
    const memory =
      rollout === undefined && event.kind === 'before_tool' ? parseMemory(peeked?.lastResults) : undefined;
    const unjudged =
      memory !== undefined &&
      event.kind === 'before_tool' &&
      memory.unendedStop === undefined &&
      deliveryOf(event, memory.seen) === 'new' &&
      rememberedResult(event, memory.results) === undefined;
    const reply: HookReply = unjudged
      ? { kind: 'silent' }
      : database.sessions.update(
          { agent, sessionId: event.sessionId, projectDir: event.projectDir },
          (session) =>
            rollout === undefined
              ? guardSession(event, session, context)
              : guardCodexSession(event, session, {
                  ...context,
                  readRollout: (offset) => readRolloutSteps(rollout, offset, until),
                }),
        );
    // A session already at its budget is stopped before its next call (Claude Code, Gemini CLI:
    // Codex's spend guard judges every call). A stop, either guard's, ends the session: no later
    // event would count the reply that asked for the stopped call, so it is counted now.
    const loopStop = reply.kind === 'stop';
    const budgetStop =
      agent !== 'codex' && event.kind === 'before_tool' && !loopStop && config.spend !== undefined
        ? budgetStopBefore(agent, event, config.spend, database, now)
        : undefined;
    // the denied call counts among those the model made, so the next denial is at the call after;
    // a new session denied its first call (the project's day spent) ran none, but every door lists
    // it and its stop: its row is made, with no tool call (qa51)
    if (budgetStop !== undefined && (peeked !== null || event.parentSessionId === undefined))
      database.sessions.update(
        { agent, sessionId: event.sessionId, projectDir: event.projectDir },
        (session) => countBudgetDenial(event, session, context),
      );
    const stopping = loopStop || budgetStop !== undefined;
    const counted = await spendVerdict(agent, event, config, database, now, distrust, stopping);
    const spend = budgetStop ?? counted;
    // a session's first call, answered silently: its row is made now, that call counted, so that
    // a session killed before the call returned is listed with it (sessions55)
    if (
      event.kind === 'before_tool' &&
      peeked === null &&
      reply.kind === 'silent' &&
      spend?.action !== 'stop'
    )
      database.sessions.update(
        { agent, sessionId: event.sessionId, projectDir: event.projectDir },
        (session) =>
          session === null
            ? { result: undefined, next: startedSession(event, context) }
            : { result: undefined },
      );
    if (rollout !== undefined && event.kind === 'before_tool' && !loopStop && spend?.action === 'stop') {
      database.sessions.update(
        { agent, sessionId: event.sessionId, projectDir: event.projectDir },
        (session) => countSpendDenial(event, session, context),
      );
    }
    failed = false;
    return spend === undefined || loopStop
      ? reply
      : withSpend(agent, reply, spend, event.kind === 'before_tool');
  } finally {
    database.close(failed);
  }
}

/**
 * Call `callId` as the transcript of the event's session holds it (`readClaudeCall`): the model's
 * input, read only where `distrust` trusts the path (the MCP server: the file where Claude Code
 * keeps that session's transcript), and not for a subagent's run (its calls are in its own file);
 * `[]` else, and when the file cannot be read (logged, but a file not there yet: the event is
 * judged without it).
 */
function skippedResult(event: HookEvent, callId: string, distrust: TranscriptDistrust, now: () => number) {
  const path = event.transcriptPath;
  if (path === undefined || event.parentSessionId !== undefined || distrust(event) !== undefined) return [];
  try {
    return readClaudeCall(path, callId);
  } catch (error) {
    // a transcript not written yet holds nothing
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      logFailure(event.projectDir, 'claude', event, error, now());
    return [];
  }
}

/** Whether the event is a subagent's whose session `database` holds. */
function holdsParent(agent: HookAgent, event: HookEvent, database: HookDatabase): boolean {
  if (event.parentSessionId === undefined) return false;
  return (
    database.sessions.peek({ agent, sessionId: event.parentSessionId, projectDir: event.projectDir }) !== null
  );
}

/**
 * The answer to an event of a second agent process on a session whose own process still runs
 * (`holder`, the recorded `linux:…:<pid>:<start>`): a call is refused and that process ended (a stop
 * that records nothing: Claude Code and Gemini CLI end it, Codex refuses each of its calls), its
 * turn's end and its session's end are silence. Nothing is written (trust50).
 */
function secondProcessReply(event: HookEvent, holder: string): HookReply {
  if (event.kind !== 'before_tool' && event.kind !== 'after_tool') return { kind: 'silent' };
  const pid = holder.split(':').at(-2);
  const message =
    `loopguard: session ${event.sessionId} is already running in another process (pid ${pid}); ` +
    'this second process on the same session is not guarded as that session, and is ended. Resume the ' +
    'session once that process has ended, or start a session of its own.';
  return {
    kind: 'stop',
    denied: event.kind === 'before_tool',
    message,
    stopReason: 'loopguard: this session is already running in another process',
  };
}

/**
 * Whether the event's session was switched off (`enabled = 0` on its row): loopguard then leaves
 * it alone, the loop guard and the spend guard alike. The session's switch covers its subagents'
 * runs, those started after it too.
 */
function switchedOff(
  agent: HookAgent,
  event: HookEvent,
  session: HookSessionSummary | null,
  database: HookDatabase,
): boolean {
  if (session?.enabled === false) return true;
  if (event.parentSessionId === undefined) return false;
  const parent = { agent, sessionId: event.parentSessionId, projectDir: event.projectDir };
  return database.sessions.peek(parent)?.enabled === false;
}
