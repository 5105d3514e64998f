import { existsSync, readSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { recordOf } from '@loopguard/core/internal';
import { withRegularFile } from '../files/regularFile.js';
import { heldAbove, heldSessionProject, hookSessionHeld } from './heldSessionProject.js';
import { openHookDatabase } from './hookDatabase.js';
import type { HookEvent } from './hookEvent.js';

/** Longest first line of a rollout read for the folder it names (Codex 0.169.0's is ≈ 22 KB). */
const MAX_SESSION_META_BYTES = 256 * 1024;
/** The first read of it. */
const FIRST_READ_BYTES = 32 * 1024;

/**
 * The project a Codex event's session is recorded in. Codex runs a session's hooks in its folder
 * (`event.projectDir`, docs/decisions.md "codexcwd"), and a session resumed from another folder
 * (`codex resume`, `codex exec resume`) in that other folder: then the session stays where it
 * started, the folder its rollout's first line (`session_meta.cwd`) names, as `scan` reads it (or
 * the project above it, or the one above that holds it: `heldSessionProject`),
 * so that its calls are counted in one row and every door shows one session. Only when that
 * project's state already holds the session (or, for a subagent's run, its session): a rollout's
 * first line alone never moves a session's calls under another project's configuration.
 * Else, and for an event that names no rollout (`--ephemeral`), `event.projectDir`.
 * A database the hooks refuse there holds none: the session is then recorded where it runs.
 * @param open - how a project's database is opened (the hook's, by default).
 */
export function codexSessionProject(event: HookEvent, open = openHookDatabase): string {
  const folder = event.transcriptPath === undefined ? undefined : rolloutFolder(event.transcriptPath);
  if (folder === undefined) return event.projectDir;
  // a session started below its repository's project is recorded there (see sessionProjectDir),
  // also where a `.git` was made in its folder since (trust45)
  const holds = hookSessionHeld('codex', event, open);
  const started = heldSessionProject(folder, holds, false);
  if (started === event.projectDir || !existsSync(join(started, '.loopguard', 'state.db')))
    return event.projectDir;
  return holds(started) ? started : (heldAbove(started, holds) ?? event.projectDir);
}

/** The absolute folder a rollout's `session_meta` line names, or `undefined` (unreadable, another first line). */
function rolloutFolder(path: string): string | undefined {
  try {
    const first = withRegularFile(path, 'rollout', (fd, stat) => {
      const most = Math.min(stat.size, MAX_SESSION_META_BYTES);
      // most first lines fit the first read; a longer one is read again, whole
      for (let length = Math.min(most, FIRST_READ_BYTES); ; length = most) {
        const buffer = Buffer.alloc(length);
        const bytes = readSync(fd, buffer, 0, length, 0);
        const end = buffer.subarray(0, bytes).indexOf(10);
        if (end !== -1) return buffer.toString('utf8', 0, end);
        if (length === most) return undefined;
      }
    });
    const record = first === undefined ? undefined : recordOf(JSON.parse(first));
    const cwd = record?.type === 'session_meta' ? recordOf(record.payload)?.cwd : undefined;
    return typeof cwd === 'string' && isAbsolute(cwd) ? cwd : undefined;
  } catch {
    // the rollout's own read reports a file it cannot read (the hook log)
    return undefined;
  }
}
