import type { SessionScan } from './SessionScan.js';
import { type FileScan, finishSession } from './scannedSession.js';
import type { TranscriptParser } from './TranscriptParser.js';

/** Why a record or a session was refused, in a few words: the error's own message, which names the field. */
export function whatWasWrong(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const kind =
    error instanceof Error && error.name !== 'Error' && !('code' in error) ? `${error.name}: ` : '';
  return `${kind}${message.length > 200 ? `${message.slice(0, 199)}…` : message}`;
}

/**
 * The records of one transcript that the parser or the detector refused, and the session's end:
 * one bad record or session is one note naming what was wrong, never the end of the scan.
 */
export class Skipped {
  private count = 0;
  private first = '';

  /** Notes a refused record. */
  add(error: unknown): void {
    if (this.count++ === 0) this.first = whatWasWrong(error);
  }

  /** The notes for the file's problem line: `3 records skipped (first: step.input …)`. */
  notes(): string[] {
    if (this.count === 0) return [];
    const records = this.count === 1 ? '1 record skipped' : `${this.count} records skipped`;
    return [`${records} (${this.count === 1 ? '' : 'first: '}${this.first})`];
  }

  /** The session read to its end; when its end is refused, only a problem naming why. */
  finish(file: string, parser: TranscriptParser, scan: SessionScan): FileScan {
    try {
      return { session: finishSession(file, parser, scan) };
    } catch (error) {
      return { problem: { file, problem: `session skipped: ${whatWasWrong(error)}` } };
    }
  }
}
