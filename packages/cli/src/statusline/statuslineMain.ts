import { basename } from 'node:path';
import { isatty } from 'node:tty';
import { SCHEMA_VERSION } from '@loopguard/sqlite/schemaVersion';
import Database from 'better-sqlite3';
import { findConfigFile } from '../files/configFiles.js';
import { sealedVerdict } from '../hook/configSeal.js';
import { heldSessionProject } from '../hook/heldSessionProject.js';
import {
  hookSwitchedOff,
  hookSwitchWords,
  projectSwitchedOff,
  unknownHookSwitch,
} from '../hook/hookSwitch.js';
import { readBounded } from '../hook/readBounded.js';
import { earlierSchemaText } from '../state/olderSchema.js';
import { ownStateDatabase, UnsafeStateError } from '../state/stateFolder.js';
import { type StatusLineInput, statusLine, statusLineInput } from './statusLine.js';

/**
 * The line where every door refuses the project's `.loopguard` (a link, another user's, a folder git
 * tracks): the hooks fail open there (with nowhere to log it when the folder itself is refused).
 */
export const NOT_GUARDING =
  'loopguard: not guarding this project (its .loopguard is refused; `loopguard status` says why)';

/**
 * The line of a session the environment leaves on: the project's off switch, or the error its
 * hooks fail open on (as the hooks' last validation of the file sealed it), else {@link NOT_GUARDING}, else `watching` before the database exists (the hooks write it on the
 * session's first tool call), else what `status` says of a database an earlier loopguard wrote,
 * else the session's summary.
 */
function projectLine(input: StatusLineInput): string {
  // the project the hooks record the session in: the repository's when it started below it (qa47),
  // the one holding it when a `.git` was made in its folder since (trust45)
  const projectDir = heldSessionProject(input.projectDir, (project) =>
    holdsSession(project, input.sessionId),
  );
  // what the hooks' last validation of the configuration said, without the YAML parser (sessions55)
  const file = findConfigFile(projectDir);
  const sealed = file === undefined ? undefined : sealedVerdict(projectDir, file);
  if (sealed !== undefined && 'error' in sealed)
    return `loopguard: failing open in this project (${sealed.error.split('\n')[0]}) until that file is fixed`;
  const offBy =
    sealed === undefined ? projectSwitchedOff(projectDir) : sealed.enabled ? undefined : basename(file ?? '');
  if (offBy !== undefined) return `loopguard: off in this project (hook.enabled: false in ${offBy})`;
  return `${sessionLine(projectDir, input)}${settingsText(sealed)}`;
}

/**
 * `; this project's settings narrow the guard (loopguard status says how)`, or that it prices
 * replies below the pricing library, or both in one clause, or `''`: what the hooks sealed of the
 * project's file (trust53). A cloned repository's exemptions, thresholds or $0 prices change what
 * the guard does; `status` says how and from which file, the line only that it does (short, and
 * without the file's parser nor the pricing library, which the hooks ran once for these bytes).
 */
function settingsText(sealed: { narrows?: true; cheaper?: true } | undefined): string {
  const what = [
    sealed?.narrows ? "this project's settings narrow the guard" : '',
    sealed?.cheaper
      ? `${sealed.narrows ? 'it' : 'this project'} prices replies below the pricing library`
      : '',
  ].filter((part) => part !== '');
  return what.length === 0 ? '' : `; ${what.join(' and ')} (loopguard status says how)`;
}

/** The session's own line from the project's database (or `watching`, or what an earlier schema needs). */
function sessionLine(projectDir: string, input: StatusLineInput): string {
  let path: string | undefined;
  try {
    // Not `readableStateDatabase`: its schema check is a schema's worth of SQL to load after every
    // reply, and the status line reads only this session's row, which a database that came with
    // the project cannot hold (the id is new); the session's first hook call checks the folder (trust51).
    path = ownStateDatabase(projectDir);
  } catch (error) {
    // The hooks fail open on it too: say that nothing is guarded, not only that nothing is shown.
    if (error instanceof UnsafeStateError) return NOT_GUARDING;
    throw error;
  }
  if (path === undefined) return 'loopguard: watching';
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 200 });
  try {
    // a database an earlier loopguard wrote: `status` refuses to read it until a hook migrates it,
    // and says so; the line says the same (story56), not a sentence of an earlier schema's view
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version < SCHEMA_VERSION) return `loopguard: ${earlierSchemaText(version, SCHEMA_VERSION)}`;
    return statusLine(db, input);
  } finally {
    db.close();
  }
}

/** Whether `project`'s database (one of the user's own, read only) has a row of Claude Code session `sessionId`. */
function holdsSession(project: string, sessionId: string): boolean {
  try {
    const path = ownStateDatabase(project);
    if (path === undefined) return false;
    const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 200 });
    try {
      const row = db
        .prepare("SELECT 1 FROM hook_sessions WHERE agent = 'claude' AND session_id = ? AND project_dir = ?")
        .get(sessionId, project);
      return row !== undefined;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** Largest status-line JSON read: 1 MiB (Claude Code sends a few hundred bytes). */
const MAX_INPUT_BYTES = 1024 * 1024;

/**
 * What `loopguard statusline` typed at a prompt says after `loopguard: ` (stdin a terminal: Claude
 * Code pipes the session's JSON), on stderr, after which it exits 1 instead of waiting (polish65).
 */
export const STATUSLINE_TERMINAL_WORDS =
  "statusline reads a Claude Code session's JSON on stdin, as Claude Code's status line sends it after each reply (loopguard init claude installs it; docs/hooks.md): stdin is a terminal, so there is nothing to show";

/**
 * `loopguard statusline`: Claude Code's `statusLine` command. Reads the session's JSON on stdin and
 * prints one line of what loopguard did to the session. It never fails the status line: whatever
 * goes wrong prints `loopguard: status unavailable` and exits 0. Typed at a prompt (stdin a
 * terminal, which Claude Code never gives it), it prints {@link STATUSLINE_TERMINAL_WORDS} on stderr
 * and exits 1.
 * @param terminal - whether stdin is a terminal and where that line goes. @default process.stdin's, process.stderr
 * @returns the exit code: 0, or 1 with a terminal as stdin.
 */
export async function statuslineMain(
  stdin: AsyncIterable<Buffer | string> = process.stdin,
  write: (text: string) => void = (text) => process.stdout.write(text),
  env: NodeJS.ProcessEnv = process.env,
  terminal: { stdinIsTerminal: boolean; stderr(text: string): void } = {
    stdinIsTerminal: stdin === process.stdin && isatty(0),
    stderr: (text) => process.stderr.write(text),
  },
): Promise<number> {
  if (terminal.stdinIsTerminal) {
    terminal.stderr(`loopguard: ${STATUSLINE_TERMINAL_WORDS}\n`);
    return 1;
  }
  let line = 'loopguard: status unavailable';
  try {
    const text = await readBounded(stdin, MAX_INPUT_BYTES);
    const input = text === undefined ? undefined : statusLineInput(text, env);
    if (input !== undefined && hookSwitchedOff(env))
      line = `loopguard: off for this session (${hookSwitchWords(env)})`;
    else if (input !== undefined) {
      const unknown = unknownHookSwitch(env);
      line = unknown === undefined ? projectLine(input) : `${projectLine(input)} · ${unknown}`;
    }
  } catch {
    // An older schema, a locked, foreign or planted file: the line says so, the status line keeps working.
  }
  write(`${line}\n`);
  return 0;
}
