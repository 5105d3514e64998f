import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { StepLoopDetector, type StepLoopDetectorOptions } from '@loopguard/core/steps';
import { detectFormat } from './detectFormat.js';
import { type ScannedLoop, SessionScan } from './SessionScan.js';
import { recordOf, type ScanAgent, type TranscriptParser } from './TranscriptParser.js';

/** One session as `loopguard scan` reports it (the `--json` shape, with a few more fields). */
export interface ScannedSession {
  /** The transcript file. */
  file: string;
  /** The agent that wrote it. */
  agent: ScanAgent;
  /** The transcript format read (`claude-transcript`, `codex-rollout`, `gemini-chat`, ...). */
  format: string;
  /** The agent's session id (the file name when the transcript names none). */
  sessionId: string;
  /** The session's project (its working directory, or the folder it is filed under), when known. */
  project: string | null;
  /** ISO time of the session's first record, when known. */
  startedAt: string | null;
  /** Steps in loopguard's step model (tool calls, their results, the agent's messages). */
  steps: number;
  /** Tool calls. */
  toolCalls: number;
  /** Tokens the session spent; `null` where the transcript records no usage. */
  tokens: number | null;
  /** The loops found, nudged-only ones included (`stopStep: null`). */
  loops: ScannedLoop[];
}

/** A file that was skipped, or read with lines left out: one line for the person. */
export interface ScanProblem {
  file: string;
  /** What went wrong, in a few words (`not JSON`, `unknown format`, `truncated last line`, ...). */
  problem: string;
}

/** What reading one file gives: a session (maybe with a problem about some lines), or only a problem. */
export interface FileScan {
  session?: ScannedSession;
  problem?: ScanProblem;
}

/** How many lines of a `loopguard run` output log are tried to find its format. */
const DETECT_WITHIN = 1000;

function parseLine(line: string): Record<string, unknown> | undefined | null {
  try {
    return recordOf(JSON.parse(line)) ?? null;
  } catch {
    return undefined;
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'unreadable (permission denied)';
  if (code === 'EISDIR') return 'is a folder';
  return `unreadable (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

/**
 * Reads one transcript, line by line (each line parsed once), and runs its session through a fresh
 * {@link StepLoopDetector} with `options`. A file whose first record is not JSON or not a format
 * loopguard knows gives only a problem; lines that are not JSON inside a session are left out (a
 * truncated last line is named as such). A `loopguard run` output log (`output.log`) may mix plain
 * text with the agent's JSON events: its plain lines are skipped silently.
 */
export async function scanFile(file: string, options: StepLoopDetectorOptions): Promise<FileScan> {
  const lenient = basename(file) === 'output.log';
  let parser: TranscriptParser | undefined;
  let scan: SessionScan | undefined;
  let lines = 0;
  let bad = 0;
  let lastBad = false;
  let rejected = 0;
  const input = createReadStream(file, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of reader) {
      lines++;
      if (line.trim() === '' || (lenient && !line.trimStart().startsWith('{'))) continue;
      // a line no step can come from is not parsed, unless it looks cut (a truncated last line)
      if (parser?.mayMatter?.(line) === false && line.trimEnd().endsWith('}')) continue;
      const record = parseLine(line);
      lastBad = record === undefined;
      if (parser === undefined) {
        if (record === undefined || record === null) {
          if (lenient && lines < DETECT_WITHIN) continue;
          return { problem: { file, problem: record === undefined ? 'not JSON' : 'unknown format' } };
        }
        parser = detectFormat(record, file);
        if (parser === undefined) {
          if (lenient && lines < DETECT_WITHIN) continue;
          return { problem: { file, problem: 'unknown format' } };
        }
        scan = new SessionScan(new StepLoopDetector(options));
      }
      if (record === undefined || record === null) {
        if (record === undefined) bad++;
        continue;
      }
      try {
        (scan as SessionScan).add(parser.push(record, line));
      } catch {
        rejected++;
      }
    }
  } catch (error) {
    return { problem: { file, problem: reason(error) } };
  } finally {
    reader.close();
    input.destroy();
  }
  if (parser === undefined || scan === undefined) {
    return { problem: { file, problem: lines === 0 ? 'empty' : 'unknown format' } };
  }
  scan.add(parser.end());
  const result = scan.finish();
  const meta = parser.meta;
  const session: ScannedSession = {
    file,
    agent: parser.agent,
    format: parser.format,
    sessionId: meta.sessionId ?? basename(file).replace(/\.jsonl?$/, ''),
    project: meta.project ?? null,
    startedAt: meta.startedAt ?? null,
    steps: result.steps,
    toolCalls: result.toolCalls,
    tokens: meta.hasUsage ? result.tokens : null,
    loops: result.loops.map((loop) => ({ ...loop, wastedTokens: meta.hasUsage ? loop.wastedTokens : null })),
  };
  const problems = [
    ...(bad > 0 && lastBad ? ['truncated last line skipped'] : []),
    ...(bad - (lastBad ? 1 : 0) > 0 ? [`${bad - (lastBad ? 1 : 0)} lines not JSON skipped`] : []),
    ...(rejected > 0 ? [`${rejected} records the detector could not take skipped`] : []),
  ];
  return problems.length === 0 ? { session } : { session, problem: { file, problem: problems.join(', ') } };
}
