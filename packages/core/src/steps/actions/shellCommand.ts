import { InvalidInputError } from '../../kernel/errors.js';
import { type Step, validateStep } from '../step.js';
import { checkOtherFields, REASONING_FIELDS } from './inputText.js';

/**
 * The agents' shell tools, lower-cased: Claude Code's `Bash`, Gemini CLI's `run_shell_command`,
 * Codex's `shell`, `shell_command`, `exec_command` and `local_shell`, OpenHands' `execute_bash` and
 * `cmd_run`, SWE-agent's and the generic `bash`, Cline's `execute_command`, Cursor's
 * `run_terminal_cmd`. Their input object's `command` (or `cmd`) is the action.
 */
export const SHELL_TOOLS: ReadonlySet<string> = new Set([
  'bash',
  'run_shell_command',
  'shell',
  'shell_command',
  'exec_command',
  'local_shell',
  'execute_bash',
  'cmd_run',
  'execute_command',
  'run_terminal_cmd',
  'terminal',
]);

/**
 * Fields of a shell call that say how the command runs, not what it runs: timeouts, output caps,
 * the working directory, background and sandbox switches, the shell to use, OpenHands'
 * `security_risk` and `is_input: false`. They never make a repeat look new.
 */
export const SHELL_OPTIONS: ReadonlySet<string> = new Set([
  'timeout',
  'timeout_ms',
  'yield_time_ms',
  'max_output_tokens',
  'workdir',
  'working_directory',
  'cwd',
  'dir_path',
  'directory',
  'run_in_background',
  'is_background',
  'dangerouslyDisableSandbox',
  'sandbox_permissions',
  'with_escalated_permissions',
  'justification',
  'security_risk',
  'shell',
  'login',
  'is_input',
]);

/** Fields that hold the command line itself. */
const COMMAND_FIELDS = ['command', 'cmd'] as const;

/** A shell given its script with `-c` / `-lc`: `["bash", "-lc", "make test"]` runs `make test`. */
const SHELL_WITH_SCRIPT = /(?:^|\/)(?:ba|z|da|k)?sh$/;

function read(record: Record<string, unknown>, key: string): unknown {
  try {
    return record[key];
  } catch (error) {
    throw new InvalidInputError(
      `step.input.${key} cannot be read: ${(error as Error)?.message ?? 'a getter threw'}`,
    );
  }
}

/** `Array.isArray`, whose throw on a revoked Proxy becomes a typed error. */
function isArray(value: object): boolean {
  try {
    return Array.isArray(value);
  } catch (error) {
    throw new InvalidInputError(
      `step.input cannot be read: ${(error as Error)?.message ?? 'a revoked Proxy'}`,
    );
  }
}

function keysOf(record: Record<string, unknown>): string[] {
  try {
    return Object.keys(record);
  } catch (error) {
    throw new InvalidInputError(
      `step.input cannot be enumerated: ${(error as Error)?.message ?? 'a Proxy trap threw'}`,
    );
  }
}

/** One argument as a shell would need it written: quoted when it holds anything but plain characters. */
function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A shell word: plain characters, `'single'` or `"double"` quoted parts, `\\x` escapes. */
const SHELL_WORD = /^(?:[^\s'"\\]|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+$/;
/** `bash -lc <script>` as one line (`/bin/bash -lc 'make test'`, as Codex reports what it ran). */
const SHELL_LINE = /^\s*(?:\S*\/)?(?:ba|z|da|k)?sh\s+-\w*c\s+(.+)$/s;

/** The script of `bash -lc '<script>'` written as one shell word, unquoted; else the line itself. */
function unwrapShell(line: string): string {
  const word = SHELL_LINE.exec(line)?.[1]?.trimEnd();
  if (word === undefined || !SHELL_WORD.test(word)) return line;
  return word.replace(
    /'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)/g,
    (_m, single, double, escaped) =>
      single ?? (double === undefined ? escaped : double.replace(/\\(.)/g, '$1')),
  );
}

/** A command field's text: a string, or an argument vector (`bash -lc <script>` is the script). */
function commandLine(value: unknown): string | undefined {
  if (typeof value === 'string') return unwrapShell(value);
  if (!Array.isArray(value) || value.length === 0 || value.length > 4096) return undefined;
  if (!value.every((part) => typeof part === 'string')) return undefined;
  const argv = value as string[];
  if (argv.length === 3 && SHELL_WITH_SCRIPT.test(argv[0] as string) && /^-\w*c$/.test(argv[1] as string)) {
    return argv[2];
  }
  return argv.map(quoted).join(' ');
}

/**
 * The command line a shell call runs, or `undefined` when the action is not a shell call. A call is
 * one when its input is an object with a `command` (or `cmd`) string or argument vector and either
 * its tool is one of {@link SHELL_TOOLS} (any case), or its input holds nothing else than that
 * command, {@link REASONING_FIELDS} and {@link SHELL_OPTIONS} (an MCP `run` tool, a framework's own
 * shell). Keys typed into a running process (OpenHands' `is_input: true`) are not a command.
 *
 * @throws InvalidInputError naming the field when a getter or Proxy trap throws, or when a field
 *   beside the command cannot be serialised (a cycle, a BigInt, nesting deeper than 64).
 * @example shellCommandOf('Bash', { command: 'grep foo', description: 'Search' }); // 'grep foo'
 * @example shellCommandOf('shell', { command: ['bash', '-lc', 'ls'], timeout_ms: 1000 }); // 'ls'
 * @example shellCommandOf('str_replace_editor', { command: 'view', path: '/a.py' }); // undefined
 */
export function shellCommandOf(tool: string, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  let command: string | undefined;
  let field: string | undefined;
  for (const name of COMMAND_FIELDS) {
    command = commandLine(read(record, name));
    if (command !== undefined) {
      field = name;
      break;
    }
  }
  if (command === undefined) return undefined;
  const typed = read(record, 'is_input');
  if (typed === true || typed === 'true') return undefined;
  const onlyCommand =
    SHELL_TOOLS.has(tool.toLowerCase()) ||
    keysOf(record).every((key) => key === field || REASONING_FIELDS.includes(key) || SHELL_OPTIONS.has(key));
  if (!onlyCommand) return undefined;
  // Only the command is judged, but the input is valid as a whole or not at all.
  checkOtherFields(record, field as string);
  return command;
}

/**
 * The action's input as the detector judges it: a shell call's command line (see
 * {@link shellCommandOf}), any other input as given. So `"grep foo"` and
 * `{ command: "grep foo", description: "Search" }` are one action, with one key, one kind and one
 * text in messages.
 * @example canonicalInput('Bash', { command: 'cat x' }); // 'cat x'
 */
export function canonicalInput(tool: string, input: unknown): unknown {
  return shellCommandOf(tool, input) ?? input;
}

/**
 * The detector's entry: {@link validateStep}, then an action's input made {@link canonicalInput}.
 * @throws InvalidInputError naming the offending field.
 * @example canonicalStep({ type: 'action', tool: 'Bash', input: { command: 'ls' } }); // { type: 'action', tool: 'Bash', input: 'ls' }
 */
export function canonicalStep(step: unknown): Step {
  const valid = validateStep(step);
  if (valid.type === 'action') valid.input = canonicalInput(valid.tool, valid.input);
  return valid;
}
