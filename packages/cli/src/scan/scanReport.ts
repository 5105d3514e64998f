import { sessionsCounted } from './joinedChats.js';
import { costOf } from './money.js';
import type { ScannedLoop } from './SessionScan.js';
import type { ScannedSession } from './scannedSession.js';

/** The totals of a scan (the `--json` `totals`, with a few more fields). */
export interface ScanTotals {
  /** Files read (transcripts found, the skipped ones included). */
  files: number;
  /** Sessions read. */
  sessions: number;
  /** Sessions with at least one loop loopguard would have stopped (or did: {@link stoppedByLoopguard}). */
  sessionsWithLoops: number;
  /** Sessions loopguard stopped in a loop (the transcript records the stop, or loopguard's record where the transcript holds none: a hook's, or `run`'s stream watcher's; a Gemini CLI subagent's chat not again where its session's record is read). */
  stoppedByLoopguard: number;
  /** Sessions loopguard's spend guard stopped at their budget (the transcript records the stop, or loopguard's record). */
  stoppedOnSpendByLoopguard: number;
  /** Tool calls that ran, in all sessions. */
  toolCalls: number;
  /** Tool calls loopguard's hooks refused before they ran, in all sessions. */
  deniedCalls: number;
  /** Tool calls after the stops, up to the loops' ends. */
  wastedToolCalls: number;
  /** Tokens after the stops; `null` when no session records usage. */
  wastedTokens: number | null;
  /** Loops that got a nudge and no stop (what a nudge-only set-up would have done). */
  nudgesWithoutStop: number;
  /** Files skipped or read in part (each reported in one line). */
  problems: number;
  /**
   * Dollars spent after the stops: each reply priced from its model (the pricing library and
   * `spend.prices`), or `--price` (per million tokens) times `wastedTokens`; `null` when no session
   * records usage.
   */
  wastedCost?: number | null;
  /** Dollars of every priced reply of every session (without `--price`). */
  costUsd?: number;
  /** Tokens whose cost is unknown: a model without a price, a format that names no model (without `--price`). */
  unpricedTokens?: number;
  /**
   * Where a project's `spend.prices` priced its sessions' replies (without `--price`): one sentence
   * each, with the prices below the pricing library's (`projectPricesNote`); absent when none did.
   */
  projectPrices?: string[];
  /** With `--budget`: the cap per session, the sessions that would have reached it, and the dollars after. */
  budget?: { usd: number; sessionsStopped: number; savedUsd: number };
}

/** What `loopguard scan --json` prints. */
export interface ScanReport {
  /** Each session scanned, with its verdict. */
  sessions: ScannedSession[];
  /** All sessions together. */
  totals: ScanTotals;
}

/** Whether a loop reached the stop. */
export const isStopped = (loop: ScannedLoop): boolean => loop.stopStep !== null;

/** A session's waste: tool calls (of them, those loopguard denied) and tokens after its stops. */
export function sessionWaste(session: ScannedSession): {
  toolCalls: number;
  deniedCalls: number;
  tokens: number | null;
} {
  let toolCalls = 0;
  let deniedCalls = 0;
  let tokens: number | null = session.tokens === null ? null : 0;
  for (const loop of session.loops) {
    toolCalls += loop.wastedToolCalls;
    deniedCalls += loop.wastedDeniedCalls ?? 0;
    if (tokens !== null) tokens += loop.wastedTokens ?? 0;
  }
  return { toolCalls, deniedCalls, tokens };
}

/** Worst first: most wasted tool calls, then most wasted tokens, then the file name. */
export function byWaste(a: ScannedSession, b: ScannedSession): number {
  const x = sessionWaste(a);
  const y = sessionWaste(b);
  return (
    y.toolCalls - x.toolCalls ||
    (y.tokens ?? 0) - (x.tokens ?? 0) ||
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)
  );
}

/**
 * The report of a scan: every session read, worst first, and the totals.
 * @param price - cost per million tokens (`--price`): one price for every model, over the per-model costs.
 * @param budgetUsd - `--budget`: adds what a cap per session would have saved (needs per-model costs).
 */
export function scanReport(
  sessions: ScannedSession[],
  files: number,
  problems: number,
  price?: number,
  budgetUsd?: number,
): ScanReport {
  const sorted = [...sessions].sort(byWaste).map((session) =>
    price === undefined
      ? session
      : {
          ...session,
          loops: session.loops.map((loop) => ({
            ...loop,
            wastedCost: loop.wastedTokens === null ? null : costOf(loop.wastedTokens, price),
          })),
        },
  );
  const totals: ScanTotals = {
    files,
    sessions: sessions.length,
    sessionsWithLoops: 0,
    stoppedByLoopguard: 0,
    stoppedOnSpendByLoopguard: 0,
    toolCalls: 0,
    deniedCalls: 0,
    wastedToolCalls: 0,
    wastedTokens: null,
    nudgesWithoutStop: 0,
    problems,
  };
  // what loopguard did: its stop in the transcript, or in its record where the transcript holds none
  const counted = sessionsCounted(sessions);
  totals.stoppedByLoopguard = counted(
    sessions.filter(
      (s) => s.loops.some((loop) => loop.loopguard === 'stopped') || s.record?.stop?.on === 'loop',
    ),
  );
  totals.stoppedOnSpendByLoopguard = counted(
    sessions.filter((s) => s.spendStop !== undefined || s.record?.stop?.on === 'spend'),
  );
  for (const session of sessions) {
    totals.toolCalls += session.toolCalls;
    totals.deniedCalls += session.deniedCalls;
    if (session.loops.some(isStopped)) totals.sessionsWithLoops++;
    totals.nudgesWithoutStop += session.loops.filter((loop) => !isStopped(loop)).length;
    const waste = sessionWaste(session);
    totals.wastedToolCalls += waste.toolCalls;
    if (waste.tokens !== null) totals.wastedTokens = (totals.wastedTokens ?? 0) + waste.tokens;
  }
  if (price !== undefined) {
    totals.wastedCost = totals.wastedTokens === null ? null : costOf(totals.wastedTokens, price);
  } else if (sessions.some((session) => session.costUsd !== undefined)) {
    Object.assign(totals, modelCosts(sessions, totals.wastedTokens === null, budgetUsd));
  }
  return { sessions: sorted, totals };
}

/** The totals of the per-model costs (see {@link ScanTotals}). */
function modelCosts(
  sessions: ScannedSession[],
  noUsage: boolean,
  budgetUsd: number | undefined,
): Partial<ScanTotals> {
  let cost = 0;
  let wasted: number | null = 0;
  let unpriced = 0;
  let saved = 0;
  let stopped = 0;
  for (const session of sessions) {
    cost += session.costUsd ?? 0;
    unpriced += session.unpricedTokens ?? 0;
    for (const loop of session.loops) {
      // a waste with tokens of unknown cost makes the total unknown: never counted as $0
      if (wasted !== null && loop.stopStep !== null)
        wasted = loop.wastedCost === null || loop.wastedCost === undefined ? null : wasted + loop.wastedCost;
    }
    if ((session.budgetSavedUsd ?? 0) > 0 || (budgetUsd !== undefined && (session.costUsd ?? 0) >= budgetUsd))
      stopped++;
    saved += session.budgetSavedUsd ?? 0;
  }
  // to the millionth of a dollar, what the terminal's and the page's amounts show (qa68: a total
  // rounded to the ten-thousandth read $0.0009 on the page beside the terminal's $0.00086)
  const millionths = (usd: number) => Math.round(usd * 1_000_000) / 1_000_000;
  return {
    wastedCost: noUsage || wasted === null ? null : millionths(wasted),
    costUsd: millionths(cost),
    unpricedTokens: unpriced,
    ...(budgetUsd === undefined
      ? {}
      : { budget: { usd: budgetUsd, sessionsStopped: stopped, savedUsd: millionths(saved) } }),
  };
}
