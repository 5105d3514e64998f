import { readdirSync, type Stats, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { reason } from './scannedSession.js';

/** Folders a walk never enters. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * Whether a file met in a walk is a transcript: a `.jsonl` file, an older Gemini CLI chat
 * (`chats/session-*.json`), or a `loopguard run` output log.
 */
function isTranscript(path: string): boolean {
  const name = basename(path);
  if (path.endsWith('.jsonl')) return true;
  if (name.startsWith('session-') && name.endsWith('.json')) return basename(dirname(path)) === 'chats';
  return isRunLog(path);
}

/** Whether a file is a `loopguard run` output log (`…/iterations/<n>/output.log`). */
export function isRunLog(path: string): boolean {
  return basename(path) === 'output.log' && path.includes('iterations');
}

/**
 * The transcripts under `path`: the file itself when it is one (any name), else every transcript
 * file in the folder and its subfolders, in name order. Unreadable folders, and a path that cannot
 * be looked at (inside a folder without search permission), are reported through `onProblem` and skipped.
 * Synchronous: the walk runs while the scan's workers load, and each asynchronous call waited for a
 * thread of libuv's pool on the busy cores (≈ 40 ms for 351 files in 21 folders, 0.5 ms this way).
 */
export function* transcriptsUnder(
  path: string,
  onProblem: (path: string, problem: string) => void,
): Generator<string> {
  let info: Stats;
  try {
    info = statSync(path);
  } catch (error) {
    onProblem(path, reason(error)); // a path inside a folder that cannot be searched: EACCES, not ENOENT
    return;
  }
  if (!info.isDirectory()) {
    yield path;
    return;
  }
  let entries: Array<{ name: string; folder: boolean }>;
  try {
    entries = readdirSync(path, { withFileTypes: true }).map((entry) => ({
      name: entry.name,
      folder: entry.isDirectory(),
    }));
  } catch (error) {
    onProblem(path, `unreadable folder (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.folder) {
      if (!SKIPPED.has(entry.name)) yield* transcriptsUnder(child, onProblem);
    } else if (isTranscript(child)) {
      yield child;
    }
  }
}
