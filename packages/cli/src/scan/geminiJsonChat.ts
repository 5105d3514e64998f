import { readFile, stat } from 'node:fs/promises';
import { recordOf } from '@loopguard/core/internal';
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { geminiProject } from './detectFormat.js';
import { GeminiChatParser } from './GeminiChatParser.js';
import { SessionScan } from './SessionScan.js';
import type { ScanPricing } from './scanCost.js';
import { type FileScan, pricedToday, reason } from './scannedSession.js';
import { Skipped } from './skippedRecords.js';

/** The largest whole-file chat read (it cannot be streamed): larger ones are skipped with a line. */
export const MAX_JSON_CHAT_BYTES = 256 * 1024 * 1024;

/**
 * An older Gemini CLI chat (`~/.gemini/tmp/<project>/chats/session-*.json`): one JSON object
 * `{ sessionId, projectHash, startTime, messages: [...] }` whose messages are the records the
 * current JSON-lines chats write, so {@link GeminiChatParser} reads them. The file is read whole:
 * one that is larger than {@link MAX_JSON_CHAT_BYTES} is skipped. A message the detector refuses is
 * skipped, and so is a session whose end it refuses, each with what was wrong.
 */
export async function scanGeminiJsonChat(
  file: string,
  options: StepLoopDetectorOptions,
  pricing?: ScanPricing,
): Promise<FileScan> {
  let chat: Record<string, unknown> | undefined;
  try {
    if ((await stat(file)).size > MAX_JSON_CHAT_BYTES)
      return { problem: { file, problem: 'too large for a JSON chat' } };
    const text = await readFile(file, 'utf8');
    try {
      chat = recordOf(JSON.parse(text));
    } catch {
      return { problem: { file, problem: 'not JSON' } };
    }
  } catch (error) {
    return { problem: { file, problem: reason(error) }, readFailed: true };
  }
  if (chat === undefined || typeof chat.sessionId !== 'string' || !Array.isArray(chat.messages)) {
    return { problem: { file, problem: 'unknown format' } };
  }
  const parser = new GeminiChatParser(geminiProject(file));
  const scan = SessionScan.of(options, pricing);
  const skipped = new Skipped();
  parser.push({ sessionId: chat.sessionId, projectHash: chat.projectHash, startTime: chat.startTime });
  for (const message of chat.messages) {
    const record = recordOf(message);
    try {
      if (record !== undefined) scan.add(parser.push(record));
    } catch (error) {
      skipped.add(error);
    }
  }
  const finished = skipped.finish(file, parser, scan);
  const notes = skipped.notes();
  if (finished.session === undefined) return finished;
  return notes.length === 0
    ? { ...finished, ...pricedToday(scan) }
    : { ...finished, problem: { file, problem: notes.join(', ') }, ...pricedToday(scan) };
}
