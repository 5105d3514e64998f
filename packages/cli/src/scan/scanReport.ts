import { costOf } from './money.js';
import type { ScannedLoop } from './SessionScan.js';
import type { ScannedSession } from './scannedSession.js';

/** The totals of a scan (the `--json` `totals`, with a few more fields). */
export interface ScanTotals {
  /** Files read (transcripts found, the skipped ones included). */
  files: number;
  /** Sessions read. */
  sessions: number;
  /** Sessions with at least one loop loopguard would have stopped. */
  sessionsWithLoops: number;
  /** Tool calls in all sessions. */
  toolCalls: number;
  /** Tool calls after the stops, up to the loops' ends. */
  wastedToolCalls: number;
  /** Tokens after the stops; `null` when no session records usage. */
  wastedTokens: number | null;
  /** Loops that got a nudge and no stop (what a nudge-only set-up would have done). */
  nudgesWithoutStop: number;
  /** Files skipped or read in part (each reported in one line). */
  problems: number;
  /** `--price` (per million tokens) times `wastedTokens`; only with `--price`. */
  wastedCost?: number | null;
}

/** What `loopguard scan --json` prints. */
export interface ScanReport {
  sessions: ScannedSession[];
  totals: ScanTotals;
}

/** Whether a loop reached the stop. */
export const isStopped = (loop: ScannedLoop): boolean => loop.stopStep !== null;

/** A session's waste: tool calls and tokens after its stops. */
export function sessionWaste(session: ScannedSession): { toolCalls: number; tokens: number | null } {
  let toolCalls = 0;
  let tokens: number | null = session.tokens === null ? null : 0;
  for (const loop of session.loops) {
    toolCalls += loop.wastedToolCalls;
    if (tokens !== null) tokens += loop.wastedTokens ?? 0;
  }
  return { toolCalls, tokens };
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
 * @param price - cost per million tokens (`--price`); adds `wastedCost`.
 */
export function scanReport(
  sessions: ScannedSession[],
  files: number,
  problems: number,
  price?: number,
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
    toolCalls: 0,
    wastedToolCalls: 0,
    wastedTokens: null,
    nudgesWithoutStop: 0,
    problems,
  };
  for (const session of sessions) {
    totals.toolCalls += session.toolCalls;
    if (session.loops.some(isStopped)) totals.sessionsWithLoops++;
    totals.nudgesWithoutStop += session.loops.filter((loop) => !isStopped(loop)).length;
    const waste = sessionWaste(session);
    totals.wastedToolCalls += waste.toolCalls;
    if (waste.tokens !== null) totals.wastedTokens = (totals.wastedTokens ?? 0) + waste.tokens;
  }
  if (price !== undefined) {
    totals.wastedCost = totals.wastedTokens === null ? null : costOf(totals.wastedTokens, price);
  }
  return { sessions: sorted, totals };
}
