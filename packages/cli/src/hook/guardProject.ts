import { type CostOf, libraryCostOf, priceBook, type SpendVerdict } from '@loopguard/core/spend';
import { defaultStepLoopDetectorOptions, type StepLoopDetectorOptions } from '@loopguard/core/steps';
import { readRolloutSteps } from './codexRollout.js';
import { guardCodexSession } from './guardCodexSession.js';
import { type GuardContext, guardSession } from './guardSession.js';
import { guardSpend } from './guardSpend.js';
import { type HookConfig, readHookConfig } from './hookConfig.js';
import { type HookDatabase, openHookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { logFailure } from './hookLog.js';
import { noopLogger } from './noopLogger.js';
import { requirePriceLibrary } from './priceLibrary.js';

/**
 * Why the event's `transcriptPath` must not be read by the spend guard (`undefined`: it may be): the
 * MCP server reads only the file where Claude Code keeps the session's transcript.
 */
export type TranscriptDistrust = (event: HookEvent) => string | undefined;

/**
 * Guards one event in its project: reads the `hook` and `spend` sections of the project's
 * configuration, opens `.loopguard/state.db` (created on first use; a lock held past
 * `lockTimeoutMs` is an error, not a wait), and runs {@link guardSession} in one transaction with
 * the nudge or stop entry it records (Codex, whose events name no exit code: {@link guardCodexSession}
 * with its rollout); then, when a budget is set, {@link guardSpend} after a tool
 * call or at the end of a turn.
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
  const config = await readHookConfig(event.projectDir);
  if (!config.enabled) return { kind: 'silent' };
  const database = open(event.projectDir, config.lockTimeoutMs);
  let failed = true;
  try {
    if (parentSwitchedOff(agent, event, database)) {
      failed = false;
      return { kind: 'silent' };
    }
    const context: GuardContext = {
      agent,
      detector: detectorOptions(config),
      record: (entry) => database.record(entry),
      now,
    };
    const rollout = agent === 'codex' ? event.transcriptPath : undefined;
    const until = event.kind === 'agent_stop' ? undefined : event.callId;
    const reply = database.sessions.update(
      { agent, sessionId: event.sessionId, projectDir: event.projectDir },
      (session) =>
        rollout === undefined
          ? guardSession(event, session, context)
          : guardCodexSession(event, session, {
              ...context,
              readRollout: (offset) => readRolloutSteps(rollout, offset, until),
            }),
    );
    const spend =
      reply.kind === 'stop' ? undefined : await spendVerdict(agent, event, config, database, now, distrust);
    failed = false;
    return spend === undefined ? reply : withSpend(reply, spend);
  } finally {
    database.close(failed);
  }
}

/**
 * The detector's options of a project without a configuration file, made once (in the hook's
 * startup snapshot), without zod.
 */
export const DEFAULT_DETECTOR_OPTIONS = defaultStepLoopDetectorOptions(noopLogger);

/**
 * The options of the session's detector, with the hook's logger: a project whose configuration sets
 * none (no file, or a file without detector options) gets the defaults made once; a project's own
 * options are validated on each call, by the detector.
 */
function detectorOptions(config: HookConfig): StepLoopDetectorOptions {
  return Object.keys(config.detector).length === 0
    ? DEFAULT_DETECTOR_OPTIONS
    : { ...config.detector, logger: noopLogger };
}

/**
 * Whether the event is a subagent's whose session was switched off (`enabled = 0` on the session's
 * row): the session's switch covers its subagents' runs, those started after it too.
 */
function parentSwitchedOff(agent: HookAgent, event: HookEvent, database: HookDatabase): boolean {
  if (event.parentSessionId === undefined) return false;
  const parent = { agent, sessionId: event.parentSessionId, projectDir: event.projectDir };
  return database.sessions.get(parent)?.enabled === false;
}

/** The spend guard's verdict after a tool call or a turn, when the configuration sets a budget. */
async function spendVerdict(
  agent: HookAgent,
  event: HookEvent,
  config: HookConfig,
  database: HookDatabase,
  now: () => number,
  distrust: TranscriptDistrust,
): Promise<SpendVerdict | undefined> {
  const options = config.spend;
  // Codex: no reply ends its turn, so its spend stop is every further call denied before it runs.
  if (options === undefined || (event.kind === 'before_tool' && agent !== 'codex')) return undefined;
  const reason = distrust(event);
  if (reason !== undefined) {
    logFailure(event.projectDir, agent, event, new Error(`${reason}: its spend is not counted`), now());
    return undefined;
  }
  return guardSpend(event, {
    agent,
    options,
    costOf: priceBook(options.prices, lazyLibraryCost()),
    store: database.spend(),
    record: (entry) => database.record(entry),
    now,
    log: (error) => logFailure(event.projectDir, agent, event, error, now()),
  });
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

/** The loop guard's reply with the spend guard's verdict: a stop ends the session, a warning is handed to the model. */
function withSpend(reply: HookReply, verdict: SpendVerdict): HookReply {
  if (verdict.action === 'stop') {
    return {
      kind: 'stop',
      denied: false,
      message: verdict.message,
      stopReason: verdict.message.split('\n')[0] ?? '',
    };
  }
  return {
    kind: 'nudge',
    message: reply.kind === 'nudge' ? `${reply.message}\n\n${verdict.message}` : verdict.message,
  };
}
