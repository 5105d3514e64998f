import { isAbsolute } from 'node:path';
import { isatty } from 'node:tty';
import { UnsafeStateError } from '../state/stateFolder.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import { boundedResult } from './boundedResult.js';
import { boundedValue } from './boundedValue.js';
import { claudeHook } from './claudeHook.js';
import { codexHook } from './codexHook.js';
import { codexSessionProject } from './codexSessionProject.js';
import { parseEventText } from './eventText.js';
import { geminiHook } from './geminiHook.js';
import { guardProject } from './guardProject.js';
import { heldSessionProject, hookSessionHeld } from './heldSessionProject.js';
import { openHookDatabase } from './hookDatabase.js';
import { CLI_NAMES, type HookAgent, type HookDialect, type HookEvent } from './hookEvent.js';
import { logFailure } from './hookLog.js';
import { hookSwitchedOff } from './hookSwitch.js';
import { keptOpen, MAX_EVENT_BYTES, readBounded } from './readBounded.js';
import type { TranscriptDistrust } from './sessionSpend.js';
import { unguardedNotice } from './unguardedNotice.js';

export { logFailure } from './hookLog.js';

/** Where a hook call reads and writes: the process by default, buffers in tests. */
export interface HookIo {
  /** The event JSON (the whole of stdin). */
  readStdin(): Promise<string>;
  /** Writes the reply (the only thing a hook ever prints). */
  stdout(text: string): void;
  /** Writes the one line of a hook that cannot run at all ({@link UNKNOWN_AGENT_EXIT}). @default nothing is written */
  stderr?(text: string): void;
  /**
   * Whether stdin is a terminal: a person typed the command, no agent CLI runs it so (each pipes its
   * event); the call then says what it is instead of waiting for its deadline. @default false
   */
  stdinIsTerminal?: boolean;
  /** The hook process's environment. */
  env: NodeJS.ProcessEnv;
  /**
   * The working directory: Codex's project (Codex runs its hooks in the session's folder), and the
   * log's fallback location before the event names the project.
   */
  cwd: string;
  /** Epoch ms. @default Date.now */
  now?: () => number;
  /**
   * Ends the process: called at the hook's own deadline ({@link hookDeadlineMs}), after one
   * `failed open` line, when the call has not answered by then. Absent: no deadline.
   */
  exit?: (code: 0) => void;
}

/** Default of the hook's own deadline: under the CLIs' default timeout of 10 s, so that the call fails open first. */
export const DEFAULT_HOOK_DEADLINE_MS = 8000;

/**
 * The shortest deadline, ms: a call that waits for nothing answers well within it, the spend
 * guard's wait for a reply (1 s) included. A shorter one would fail every call open: an off
 * switch no door says, which a repository's `.claude/settings.json` (its `env`) could set (trust48).
 */
export const MIN_HOOK_DEADLINE_MS = 2000;

/**
 * The hook's own deadline, ms: `LOOPGUARD_HOOK_DEADLINE_MS` when it is a positive integer (at least
 * {@link MIN_HOOK_DEADLINE_MS}), else {@link DEFAULT_HOOK_DEADLINE_MS}. It ends a call that waits (an
 * event whose stdin never ends, a slow file system); the work in between is bounded on its own (the
 * event's size, the result the detector sees, the database's `lockTimeoutMs`).
 */
export function hookDeadlineMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.LOOPGUARD_HOOK_DEADLINE_MS);
  return Number.isInteger(value) && value > 0
    ? Math.max(value, MIN_HOOK_DEADLINE_MS)
    : DEFAULT_HOOK_DEADLINE_MS;
}

const DIALECTS: Record<string, HookDialect> = { claude: claudeHook, gemini: geminiHook, codex: codexHook };

/**
 * The exit code of `loopguard hook <agent>` for an agent it does not know (a settings line it did
 * not write): Claude Code, Gemini CLI and Codex read an exit code other than 0 and 2 as a hook that
 * failed without blocking, and show its line on stderr. Exit 0 would be an off switch nobody sees,
 * exit 2 a block (trust51).
 */
export const UNKNOWN_AGENT_EXIT = EXIT_CODES.internalError;

/** What `loopguard hook <agent>` says of an agent it does not know, after `loopguard: `. */
export function unknownAgentWords(agent: string): string {
  return `hook: ${unknownAgent(agent).message}: this call is not guarded`;
}

/** What `loopguard hook <agent>` run at a terminal says, after `loopguard: ` (qa64). */
export function terminalStdinWords(agent: HookAgent): string {
  return `hook ${agent} reads one hook event on stdin, as ${CLI_NAMES[agent]} sends it (loopguard init ${agent} installs it; docs/hooks.md): stdin is a terminal, so this call guards nothing`;
}

/**
 * One hook call: `loopguard hook claude|gemini|codex` with the CLI's event on stdin. Returns 0:
 * when loopguard itself fails (a missing or corrupt database, a lock held past `lockTimeoutMs`, a
 * malformed or unknown event, a bad configuration), nothing is printed and one line goes to
 * `.loopguard/hook.log` in the project: a guard that breaks must not break the agent. An unknown
 * agent (not `claude`, `gemini` or `codex`) guards nothing at all: one line on stderr and
 * {@link UNKNOWN_AGENT_EXIT}, stdin unread.
 *
 * @param agent - `claude`, `gemini` or `codex`.
 * @example process.exitCode = await runHook('claude', processHookIo());
 */
export async function runHook(agent: string, io: HookIo): Promise<0 | typeof UNKNOWN_AGENT_EXIT> {
  if (hookSwitchedOff(io.env)) return 0; // stdin is not even read
  if (!Object.hasOwn(DIALECTS, agent)) {
    io.stderr?.(`loopguard: ${unknownAgentWords(agent)}\n`);
    return UNKNOWN_AGENT_EXIT;
  }
  if (io.stdinIsTerminal === true) {
    io.stderr?.(`loopguard: ${terminalStdinWords(agent as HookAgent)}\n`);
    return UNKNOWN_AGENT_EXIT;
  }
  const fail = (error: unknown) =>
    logFailure(projectDirOfContext(io), agent, undefined, error, (io.now ?? Date.now)());
  const deadlineMs = hookDeadlineMs(io.env);
  const deadline =
    io.exit === undefined
      ? undefined
      : setTimeout(() => {
          fail(new Error(`no answer within the hook's deadline of ${deadlineMs} ms`));
          io.exit?.(0);
        }, deadlineMs);
  deadline?.unref();
  try {
    let text: string;
    try {
      text = await io.readStdin();
    } catch (error) {
      fail(error);
      return 0;
    }
    const out = await answerHookEvent(agent, text, io);
    if (out !== '') io.stdout(out);
    return 0;
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * The reply to one event of `agent` (the JSON to print, `''` for silence), for the hook process and
 * for the MCP server alike. Silence, reading and writing nothing, when `context.env` switches the
 * hooks off ({@link hookSwitchedOff}). Never throws: a failure is logged to the project's
 * `.loopguard/hook.log` and answered with silence, except a refused `.loopguard` (a link, another
 * user's, tracked by git), which the user is told of once a session ({@link unguardedNotice}). The reply only ever adds context, refuses a call
 * or ends the session: whatever a bug would make of it, it never answers `allow` ({@link withoutAllow}).
 * @param text - the event's JSON text.
 * @param context - the environment the CLI gave the call (its project directory variables), the
 *   working directory (the log's place before the event names the project; `''`: none, nothing is
 *   logged), the clock, and how the project's database is opened (see `guardProject`).
 * @example await answerHookEvent('claude', '{"hook_event_name":"PostToolUse",...}', { env: process.env, cwd: process.cwd() });
 */
export async function answerHookEvent(
  agent: string,
  text: string,
  context: Pick<HookIo, 'env' | 'cwd' | 'now'> & {
    openDatabase?: typeof openHookDatabase;
    /**
     * Reads the event's fields within `EVENT_BOUNDS` another way (the MCP tool's arguments,
     * `parseEventFields`): then `text` is not read. A throw is a failure like a bad text's.
     */
    fields?: () => Record<string, unknown>;
    /** Why an event's transcript must not be read (see `guardProject`). @default every one is read */
    distrust?: TranscriptDistrust;
  },
): Promise<string> {
  if (hookSwitchedOff(context.env)) return '';
  const now = context.now ?? Date.now;
  let event: HookEvent | undefined;
  let dialect: HookDialect | undefined;
  let projectDir = projectDirOfContext(context);
  try {
    dialect = dialectOf(agent);
    event =
      context.fields === undefined
        ? readHookEvent(dialect, text, context.env, context.cwd)
        : readHookEventFields(dialect, context.fields(), context.env, context.cwd);
    if (!isAbsolute(event.projectDir))
      throw new Error(`the project directory ${JSON.stringify(event.projectDir)} is not an absolute path`);
    // recorded in the repository's project when the session started below it (qa47), and a Codex
    // session resumed from another folder in the project it started in (codex47); the transcript
    // is still the one the agent keeps for the folder the session started in
    const startedIn = event.projectDir;
    // (and kept in the project that holds it when a `.git` made since then ends the walk: trust45)
    let recorded = withProjectDir(
      event,
      heldSessionProject(
        startedIn,
        hookSessionHeld(dialect.agent, event, context.openDatabase ?? openHookDatabase),
        false, // guardProject peeks in the project's database itself (trust46)
      ),
    );
    if (dialect.agent === 'codex')
      recorded = withProjectDir(recorded, codexSessionProject(recorded, context.openDatabase));
    projectDir = recorded.projectDir;
    const { distrust } = context;
    const trust: TranscriptDistrust | undefined =
      distrust === undefined || recorded === event
        ? distrust
        : (e) => distrust({ ...e, projectDir: startedIn });
    const reply = await guardProject(dialect.agent, recorded, now, context.openDatabase, trust);
    return withoutAllow(dialect.render(event, reply));
  } catch (error) {
    logFailure(projectDir, agent, event, error, now());
    // a refused `.loopguard` switches loopguard off: the user hears it once a session, not the log alone
    if (!(error instanceof UnsafeStateError) || dialect === undefined || event === undefined) return '';
    const notice = unguardedNotice(dialect.agent, event, context.env, now());
    return notice === undefined ? '' : withoutAllow(dialect.notice(event, notice));
  }
}

/**
 * `reply` unless it would let a call run past the user's own permission prompt
 * (`permissionDecision: "allow"`, `decision: "approve"` or `"allow"`): then silence.
 */
export function withoutAllow(reply: string): string {
  return /"(?:permissionDecision|decision|behavior)":"(?:allow|approve)"/.test(reply) ? '' : reply;
}

function projectDirOfContext(context: Pick<HookIo, 'env' | 'cwd'>): string {
  return context.env.CLAUDE_PROJECT_DIR || context.env.GEMINI_PROJECT_DIR || context.cwd;
}

function dialectOf(agent: string): HookDialect {
  if (!Object.hasOwn(DIALECTS, agent)) throw unknownAgent(agent);
  return DIALECTS[agent] as HookDialect;
}

function unknownAgent(agent: string): Error {
  return new Error(`unknown agent ${JSON.stringify(agent)} (expected claude, gemini or codex)`);
}

/**
 * One event's text as the hook reads it, every field bounded before any other work: the text
 * within `EVENT_BOUNDS` (see {@link parseEventText}), then the dialect's reading, then the tool
 * input and result within the detector's bounds.
 * @param env - the hook process's environment; `cwd` its working directory (see {@link HookDialect.parse}).
 * @throws HookInputError (an `InvalidInputError`) naming what is wrong with the event.
 */
export function readHookEvent(
  dialect: HookDialect,
  text: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): HookEvent {
  return bounded(dialect.parse(parseEventText(text), env, cwd));
}

/**
 * One event's fields, read within `EVENT_BOUNDS` (the MCP tool's arguments, `parseEventFields`), as
 * {@link readHookEvent} reads an event's text from there on.
 * @throws HookInputError (an `InvalidInputError`) naming what is wrong with the event.
 */
export function readHookEventFields(
  dialect: HookDialect,
  fields: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  cwd: string,
): HookEvent {
  return bounded(dialect.parse(fields, env, cwd));
}

/**
 * The event cut to what the detector needs, before it sees it: the tool input within
 * `VALUE_BOUNDS` (see {@link boundedValue}), the tool result or text cut by {@link boundedResult}.
 */
function bounded(event: HookEvent): HookEvent {
  if (event.kind === 'before_tool') return { ...event, input: boundedValue(event.input) };
  if (event.kind === 'after_tool')
    return { ...event, input: boundedValue(event.input), output: boundedResult(event.output) };
  if (event.kind === 'agent_stop') return { ...event, text: boundedResult(event.text) };
  return event;
}

/**
 * The {@link HookIo} of the running process, and `replied()`: resolves once the reply written (if
 * any) has reached standard output (a pipe's writes are asynchronous on some systems).
 */
export function processHookIo(): HookIo & { replied(): Promise<void> } {
  let replied = Promise.resolve();
  return {
    readStdin: async () => {
      const text = await readBounded(keptOpen(process.stdin));
      if (text === undefined) throw new Error(`the event is larger than ${MAX_EVENT_BYTES} bytes`);
      return text;
    },
    stdout: (text) => {
      replied = new Promise((resolve) => process.stdout.write(text, () => resolve()));
    },
    replied: () => replied,
    stderr: (text) => process.stderr.write(text),
    stdinIsTerminal: isatty(0),
    env: process.env,
    cwd: process.cwd(),
    exit: (code) => process.exit(code),
  };
}

/** `event` recorded in `projectDir` (itself when that is already its folder). */
function withProjectDir(event: HookEvent, projectDir: string): HookEvent {
  return projectDir === event.projectDir ? event : { ...event, projectDir };
}
