import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { recordOf } from '@loopguard/core/internal';
import type { StepLoopDetector, StepLoopDetectorOptions } from '@loopguard/core/steps';
import { detectFormat } from './detectFormat.js';
import { scanGeminiJsonChat } from './geminiJsonChat.js';
import { MAX_LINE_LENGTH, readLines } from './readLines.js';
import { SessionScan } from './SessionScan.js';
import type { ScanCost, ScanPricing } from './scanCost.js';
import { type FileScan, notRegular, pricedToday, reason } from './scannedSession.js';
import { Skipped } from './skippedRecords.js';
import type { TranscriptParser } from './TranscriptParser.js';

/** How many lines of a `loopguard run` output log are tried to find its format. */
const DETECT_WITHIN = 1000;

function parseLine(line: string): Record<string, unknown> | undefined | null {
  try {
    return recordOf(JSON.parse(line)) ?? null;
  } catch {
    return undefined;
  }
}

/**
 * Reads one transcript, line by line (each line parsed once), and runs its session through a fresh
 * {@link StepLoopDetector} with `options`. A file whose first record is not JSON or not a format
 * loopguard knows gives only a problem; lines that are not JSON inside a session are left out (a
 * truncated last line is named as such). A `loopguard run` output log (`output.log`) may mix plain
 * text with the agent's JSON events: its plain lines are skipped silently, and one with no JSON
 * line at all (a run without `--agent-stream`) is no session and no problem. A `.json` file is an older
 * Gemini CLI chat, read whole (see {@link scanGeminiJsonChat}). With `pricing`, each reply is
 * priced from its model (see {@link ScanCost}). What is not a regular file (a FIFO, a socket, a
 * device) is never opened; a line over {@link MAX_LINE_LENGTH} is skipped unread; a record the
 * detector refuses is skipped, and so is a session whose end it refuses: each with what was wrong.
 */
export async function scanFile(
  file: string,
  options: StepLoopDetectorOptions,
  pricing?: ScanPricing,
): Promise<FileScan> {
  try {
    const kind = notRegular(statSync(file));
    if (kind !== undefined) return { problem: { file, problem: `not a regular file (${kind})` } };
  } catch (error) {
    return { problem: { file, problem: reason(error) }, readFailed: true };
  }
  if (file.endsWith('.json')) return scanGeminiJsonChat(file, options, pricing);
  const lenient = basename(file) === 'output.log';
  let parser: TranscriptParser | undefined;
  let scan: SessionScan | undefined;
  let lines = 0;
  let bad = 0;
  let lastBad = false;
  let long = 0;
  let events = 0;
  const skipped = new Skipped();
  try {
    for await (const batch of readLines(file)) {
      for (const line of batch) {
        lines++;
        if (typeof line !== 'string') {
          long++;
          continue;
        }
        if (line.trim() === '' || (lenient && !line.trimStart().startsWith('{'))) continue;
        events++;
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
          scan = SessionScan.of(options, pricing);
        }
        if (record === undefined || record === null) {
          if (record === undefined) bad++;
          continue;
        }
        try {
          (scan as SessionScan).add(parser.push(record, line));
        } catch (error) {
          skipped.add(error);
        }
      }
    }
  } catch (error) {
    return { problem: { file, problem: reason(error) }, readFailed: true };
  }
  if (parser === undefined || scan === undefined) {
    // the log of a run without --agent-stream: the agent's text, or nothing; no transcript, no fault
    if (lenient && events === 0 && long === 0) return {};
    const what = long > 0 ? `a line over ${MAX_LINE_LENGTH / 1024 / 1024} MiB` : 'unknown format';
    return { problem: { file, problem: lines === 0 ? 'empty' : what } };
  }
  const finished = skipped.finish(file, parser, scan);
  if (finished.session === undefined) return finished;
  const { session } = finished;
  const problems = [
    ...(bad > 0 && lastBad ? ['truncated last line skipped'] : []),
    ...(bad - (lastBad ? 1 : 0) > 0 ? [`${bad - (lastBad ? 1 : 0)} lines not JSON skipped`] : []),
    ...(long > 0
      ? [`${long} ${long === 1 ? 'line' : 'lines'} over ${MAX_LINE_LENGTH / 1024 / 1024} MiB skipped`]
      : []),
    ...skipped.notes(),
  ];
  const today = pricedToday(scan);
  return problems.length === 0
    ? { session, ...today }
    : { session, problem: { file, problem: problems.join(', ') }, ...today };
}
