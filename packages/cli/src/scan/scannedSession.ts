import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import type { ScannedLoop, SessionScan, SpendStop } from './SessionScan.js';
import type { SessionRecord } from './sessionRecord.js';
import type { ScanAgent, TranscriptParser } from './TranscriptParser.js';

/** One session as `loopguard scan` reports it (the `--json` shape, with a few more fields). */
export interface ScannedSession {
  /** The transcript file. */
  file: string;
  /** The agent that wrote it. */
  agent: ScanAgent;
  /** The transcript format read (`claude-transcript`, `codex-rollout`, `gemini-chat`, ...). */
  format: string;
  /** The agent's session id (a Claude Code subagent's own id; the file name when the transcript names none). */
  sessionId: string;
  /** A Claude Code subagent's run: the session it belongs to. Absent for a main thread. */
  parentSessionId?: string;
  /**
   * The session's project, when known: the one loopguard keeps it in where its database holds a
   * record of the session (`status`'s project), else its working directory (or the folder it is filed under).
   */
  project: string | null;
  /** The folder the agent started in, where loopguard keeps the session in another project (`repo/src` of `repo`'s session). */
  startedIn?: string;
  /** What loopguard's hooks recorded of the session, where its project's `state.db` holds it: what `status` says. */
  record?: SessionRecord;
  /**
   * Where the session has no record and started in a project whose hooks are switched off now:
   * `status`'s words, `off in /repo (hook.enabled: false in /repo/loopguard.config.yaml): loopguard
   * guards no session started there`; or whose record says the user switched it off: `off for this
   * session (switched off), in /repo`.
   */
  unguarded?: string;
  /** Where `record` and the transcript tell the session differently, in the user's words (`recordDifference`). */
  recordDiffers?: string;
  /** ISO time of the session's first record, when known. */
  startedAt: string | null;
  /** Steps in loopguard's step model (tool calls, their results, the agent's messages). */
  steps: number;
  /** Tool calls that ran (as `status`, the dashboard and the status line count them). */
  toolCalls: number;
  /** Tool calls loopguard's hooks refused before they ran (a call's number counts them too). */
  deniedCalls: number;
  /** Tokens the session spent; `null` where the transcript records no usage. */
  tokens: number | null;
  /** The loops found, nudged-only ones included (`stopStep: null`). */
  loops: ScannedLoop[];
  /** Where loopguard's spend guard stopped the session, when its hooks did (the transcript holds the stop). */
  spendStop?: SpendStop;
  /** Dollars of the session's priced replies (each from its model); `null` where no usage is recorded. Absent without a price book. */
  costUsd?: number | null;
  /** Tokens whose cost is unknown (no price for the model, or no model named). Absent without a price book. */
  unpricedTokens?: number;
  /** With `--budget`: the dollars after the reply that reached the budget (0: never reached). */
  budgetSavedUsd?: number;
}

/** A file that was skipped, or read with lines left out: one line for the person. */
export interface ScanProblem {
  /** The file (or folder) concerned. */
  file: string;
  /** What went wrong, in a few words (`not JSON`, `unknown format`, `truncated last line`, ...). */
  problem: string;
}

/** What reading one file gives: a session (maybe with a problem about some lines), or only a problem. */
export interface FileScan {
  /** The session read, when the file is a transcript. */
  session?: ScannedSession;
  /** What was skipped: the whole file (no session) or some of its lines. */
  problem?: ScanProblem;
  /**
   * A reply was priced at the time of the scan (it names no time of its own): the result may differ
   * another day, so the scan cache does not remember it. Not part of the report.
   */
  pricedToday?: true;
  /**
   * The file could not be read (an I/O error, a worker that died on it): another scan may read it,
   * so the scan cache does not remember it. Not part of the report.
   */
  readFailed?: true;
}

/** `{ pricedToday: true }` when `scan` priced a reply at the time of the scan (see {@link FileScan.pricedToday}). */
export function pricedToday(scan: SessionScan): Pick<FileScan, 'pricedToday'> {
  return scan.cost?.pricedToday === true ? { pricedToday: true } : {};
}

/**
 * The session of a transcript read to its end: what the parser still holds is observed, and the
 * loops' tokens are `null` where the transcript records no usage.
 */
export function finishSession(file: string, parser: TranscriptParser, scan: SessionScan): ScannedSession {
  scan.add(parser.end());
  const result = scan.finish();
  const meta = parser.meta;
  return {
    file,
    agent: parser.agent,
    format: parser.format,
    sessionId: meta.sessionId ?? basename(file).replace(/\.jsonl?$/, ''),
    ...(meta.parentSessionId === undefined ? {} : { parentSessionId: meta.parentSessionId }),
    project: meta.project ?? null,
    startedAt: meta.startedAt ?? null,
    steps: result.steps,
    toolCalls: result.toolCalls,
    deniedCalls: result.deniedCalls,
    tokens: meta.hasUsage ? result.tokens : null,
    loops: result.loops.map((loop) => ({
      ...loop,
      wastedTokens: meta.hasUsage ? loop.wastedTokens : null,
      ...(loop.wastedCost === undefined ? {} : { wastedCost: meta.hasUsage ? loop.wastedCost : null }),
    })),
    ...(result.spendStop === undefined ? {} : { spendStop: result.spendStop }),
    ...costOf(scan, meta.hasUsage),
  };
}

/** The session's cost fields, when the scan priced it. */
function costOf(scan: SessionScan, hasUsage: boolean): Partial<ScannedSession> {
  const cost = scan.cost;
  if (cost === undefined) return {};
  const saved = cost.budgetSaved;
  return {
    costUsd: hasUsage ? cost.usd : null,
    unpricedTokens: cost.unpricedTokens,
    ...(saved === null ? {} : { budgetSavedUsd: saved }),
  };
}

/** One line saying why a file could not be read. */
export function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'unreadable (permission denied)';
  if (code === 'EISDIR') return 'is a folder';
  return `unreadable (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

/** What a path is when it is not a regular file (`a FIFO`, `a socket`, `a device`, `a folder`); `undefined` for a file. */
export function notRegular(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'a device';
}
