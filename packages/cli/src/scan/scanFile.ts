import { basename } from 'node:path';
import { StepLoopDetector, type StepLoopDetectorOptions } from '@loopguard/core/steps';
import { detectFormat } from './detectFormat.js';
import { scanGeminiJsonChat } from './geminiJsonChat.js';
import { readLines } from './readLines.js';
import { SessionScan } from './SessionScan.js';
import { ScanCost, type ScanPricing } from './scanCost.js';
import { type FileScan, finishSession, reason } from './scannedSession.js';
import { recordOf, type TranscriptParser } from './TranscriptParser.js';

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
 * text with the agent's JSON events: its plain lines are skipped silently. A `.json` file is an older
 * Gemini CLI chat, read whole (see {@link scanGeminiJsonChat}). With `pricing`, each reply is
 * priced from its model (see {@link ScanCost}).
 */
export async function scanFile(
  file: string,
  options: StepLoopDetectorOptions,
  pricing?: ScanPricing,
): Promise<FileScan> {
  if (file.endsWith('.json')) return scanGeminiJsonChat(file, options, pricing);
  const lenient = basename(file) === 'output.log';
  let parser: TranscriptParser | undefined;
  let scan: SessionScan | undefined;
  let lines = 0;
  let bad = 0;
  let lastBad = false;
  let rejected = 0;
  try {
    for await (const batch of readLines(file)) {
      for (const line of batch) {
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
          scan = SessionScan.of(options, pricing);
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
    }
  } catch (error) {
    return { problem: { file, problem: reason(error) } };
  }
  if (parser === undefined || scan === undefined) {
    return { problem: { file, problem: lines === 0 ? 'empty' : 'unknown format' } };
  }
  const session = finishSession(file, parser, scan);
  const problems = [
    ...(bad > 0 && lastBad ? ['truncated last line skipped'] : []),
    ...(bad - (lastBad ? 1 : 0) > 0 ? [`${bad - (lastBad ? 1 : 0)} lines not JSON skipped`] : []),
    ...(rejected > 0 ? [`${rejected} records the detector could not take skipped`] : []),
  ];
  return problems.length === 0 ? { session } : { session, problem: { file, problem: problems.join(', ') } };
}
