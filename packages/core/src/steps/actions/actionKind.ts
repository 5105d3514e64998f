import {
  CHANGE_COMMANDS,
  GIT_READS,
  PACKAGE_CHANGES,
  PACKAGE_MANAGERS,
  PACKAGE_READS,
  PREFIXES,
  READ_COMMANDS,
} from './shellCommands.js';
import { shellSegments } from './shellSegments.js';

/**
 * What an action does to the work, as outcome stagnation needs it:
 * - `change`: it edits files or the environment (an editor tool, `sed -i`, a redirect into a file,
 *   `rm`, `pip install`, `git checkout`, ...);
 * - `probe`: it runs something whose result tells whether a change worked (`python reproduce.py`,
 *   `pytest tests/test_x.py`, `npm test`, an IPython cell);
 * - `read`: it only looks (`cat`, `grep`, `ls`, a file view, a search tool).
 */
export type ActionKindName = 'change' | 'probe' | 'read';

/** An action classified: see {@link classifyAction}. */
export interface ActionKind {
  /** What the action does to the work: a change, a probe run or a read. */
  kind: ActionKindName;
  /** For a probe, its identity: the commands it runs, `cd` prefixes left out, whitespace collapsed; else `''`. */
  probe: string;
  /** Files the action names: what a change writes (editor paths, redirect and `sed -i` targets), what a read reads; at most 4. */
  paths: string[];
  /** Whether the change writes whole files (`create`, `Write`, `cat > f`): how an agent makes its own scripts. */
  fullWrite?: boolean;
  /**
   * Whether the change is an editing tool's call or an agent's editing command (SWE-agent's `edit
   * 12:14`), not a shell command line: when it is refused, the reply is the tool's own message (see
   * `refusalLine` in `turnOutcome.ts`), not a program's output. Absent: a shell line or a read.
   */
  editor?: boolean;
}

/**
 * Input fields that carry new file content: their presence makes an editor call a change, and their
 * values are an action's identity as written (`writtenContent`).
 */
export const CONTENT_FIELDS: readonly string[] = [
  'old_str',
  'new_str',
  'file_text',
  'old_string',
  'new_string',
  'content',
  'contents',
  'edits',
  'patch',
  'diff',
  'insert_line',
  'new_source',
  'changes',
];
/** Input fields holding a whole file's content. */
const WHOLE_FILE_FIELDS = ['file_text', 'content', 'contents'];
/** Sub-commands of file-editor tools (Anthropic's text editor, OpenHands, SWE-agent) that write. */
const EDITOR_WRITES = new Set(['create', 'str_replace', 'insert', 'undo_edit', 'write', 'edit', 'append']);
/** Sub-commands of file-editor tools that only look. */
const EDITOR_READS = new Set(['view', 'read', 'open', 'goto', 'scroll_up', 'scroll_down', 'search', 'find']);
/** Fields naming the file an editor call works on. */
const PATH_FIELDS = [
  'path',
  'file_path',
  'filename',
  'file',
  'notebook_path',
  'target_file',
  'absolute_path',
];
/** Tool names that write files whatever their input (Claude Code's `Edit`, Gemini CLI's `replace`, Codex's `apply_patch`). */
const WRITING_TOOL =
  /(?:^|[_\-.\s])(?:edit|multiedit|write|replace|patch|create|insert|append)(?:$|[_\-.\s])|^(?:Edit|MultiEdit|Write|NotebookEdit)$/i;

/**
 * Classifies an action for outcome stagnation (see {@link ActionKind}). `input` is the action's
 * input as given (a command string or an argument object); a string is a shell command line (or a
 * SWE-agent command: `edit 12:14`, `open f.py`).
 *
 * @example classifyAction('execute_bash', { command: 'cd /repo && python reproduce.py' }).probe; // 'python reproduce.py'
 * @example classifyAction('str_replace_editor', { command: 'view', path: '/a.py' }).kind; // 'read'
 */
export function classifyAction(tool: string, input: unknown): ActionKind {
  if (typeof input === 'string') return classifyShell(input);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return WRITING_TOOL.test(tool)
      ? { kind: 'change', probe: '', paths: [], editor: true }
      : { kind: 'read', probe: '', paths: [] };
  }
  const record = input as Record<string, unknown>;
  const sub = typeof record.command === 'string' ? record.command : undefined;
  // Keys typed into a running process (OpenHands' `is_input`, Ctrl-C) run nothing new.
  if (record.is_input === true || record.is_input === 'true') return { kind: 'read', probe: '', paths: [] };
  const paths = PATH_FIELDS.map((field) => record[field]).filter((p): p is string => typeof p === 'string');
  // A writing sub-command that names neither content nor a file (`{ command: 'create' }`) writes
  // nothing: a malformed call, judged as any other call, not as a change.
  const writes = sub !== undefined && EDITOR_WRITES.has(sub) && paths.length > 0;
  if (CONTENT_FIELDS.some((field) => field in record) || writes) {
    const fullWrite =
      sub === 'create' ||
      (!('old_str' in record) && !('old_string' in record) && WHOLE_FILE_FIELDS.some((f) => f in record));
    return { kind: 'change', probe: '', paths: paths.slice(0, 4), fullWrite, editor: true };
  }
  if (sub !== undefined && EDITOR_READS.has(sub))
    return { kind: 'read', probe: '', paths: paths.slice(0, 4) };
  const shell = commandTextOf(input);
  if (shell !== '') return classifyShell(shell);
  if (typeof record.code === 'string') return { kind: 'probe', probe: collapse(record.code), paths: [] };
  const pattern = typeof record.pattern === 'string' ? [] : paths;
  return WRITING_TOOL.test(tool)
    ? { kind: 'change', probe: '', paths: pattern.slice(0, 4), editor: true }
    : { kind: 'read', probe: '', paths: pattern.slice(0, 4) };
}

/**
 * The shell command an action runs: a string input itself, else the input's `command` or `cmd`
 * field (a string, or an argument vector joined with spaces, `bash -lc` left out), else `''`.
 * Exemptions and probes read this, so `{ command: 'sleep 30' }` is `sleep 30` whatever the shape.
 *
 * @example commandTextOf({ command: ['bash', '-lc', 'sleep 30'] }); // 'sleep 30'
 */
export function commandTextOf(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return '';
  const record = input as Record<string, unknown>;
  for (const field of ['command', 'cmd']) {
    const value = record[field];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((part) => typeof part === 'string')) {
      const argv = value as string[];
      const shellFlag = argv.length === 3 && /(?:^|\/)(?:ba|z)?sh$/.test(argv[0] as string) ? 2 : 0;
      return argv.slice(shellFlag).join(' ');
    }
  }
  return '';
}

/** Characters of a command line that are classified: the commands are at its start. */
const CLASSIFIED_TEXT = 4000;
/** SWE-agent's editing commands: their first line is the command, the rest is file content. */
const EDITOR_COMMAND = /^\s*(?:edit|insert|append|create)\b(?=\s*\S)/;

/**
 * Whether a command line is one of SWE-agent's editing commands (`edit 12:14` and the lines it
 * writes, `create f.py`): its first line is the command, the rest is file content.
 * @example isEditorCommand('edit 3:3\nx = 1\nend_of_edit'); // true
 */
export function isEditorCommand(text: string): boolean {
  return EDITOR_COMMAND.test(text);
}

function classifyShell(text: string): ActionKind {
  if (isEditorCommand(text))
    return { kind: 'change', probe: '', paths: [], fullWrite: /^\s*create\b/.test(text), editor: true };
  text = text.length > CLASSIFIED_TEXT ? text.slice(0, CLASSIFIED_TEXT) : text;
  const probes: string[] = [];
  const paths: string[] = [];
  const read: string[] = [];
  let changes = false;
  const written = { whole: false };
  for (const segment of shellSegments(text)) {
    const words = segment.split(/\s+/);
    const kind = segmentKind(segment, words, paths, written);
    if (kind === 'read' && !/^cd\s/.test(segment)) read.push(...fileArguments(segment, words));
    if (kind === 'change') changes = true;
    else if (kind === 'probe') probes.push(collapse(segment).replace(/^python3?\b/, 'python'));
  }
  // A line that writes and runs (`sed -i … && python x.py`) is a change followed by its probe run:
  // the probe is judged after the change, which is what the rule needs.
  if (probes.length > 0 && !changes) return { kind: 'probe', probe: probes.join(' ; '), paths };
  if (changes)
    return { kind: 'change', probe: probes.join(' ; '), paths: paths.slice(0, 4), fullWrite: written.whole };
  return { kind: 'read', probe: '', paths: read.slice(0, 4) };
}

/** Quoted text in a shell segment: `'single'` or `"double"` with its escapes. */
const QUOTED = /'[^']*'|"(?:[^"\\]|\\.)*"/g;
/** A redirect into a file (`> f`, `>> f`), not `2>&1` nor `>&2`: its operator and target. */
const REDIRECT = /(?:^|[^0-9&>])(>>?)\s*([^\s&|;>]+)/;

/** Whether a segment holds a quote: else {@link QUOTED} has nothing to blank in it. */
function hasQuote(segment: string): boolean {
  return segment.includes("'") || segment.includes('"');
}

/** The arguments of a command that look like files (`a.py`, `src/x`), quoted text and flags left out; `words` as for {@link segmentKind}. */
function fileArguments(segment: string, words: string[]): string[] {
  // without quotes, the segment's words are the ones its command was read from
  return (hasQuote(segment) ? segment.replace(QUOTED, ' ').split(/\s+/) : words)
    .slice(1)
    .filter((word) => !word.startsWith('-') && (word.includes('/') || /\.[A-Za-z]\w*$/.test(word)));
}

/** What one segment does; `words` is the segment split at whitespace. */
function segmentKind(
  segment: string,
  words: string[],
  paths: string[],
  written: { whole: boolean },
): ActionKindName {
  let at = 0;
  while (
    at < words.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at] as string) || PREFIXES.has(words[at] as string))
  ) {
    if (words[at] === 'timeout') at++;
    at++;
  }
  const word = words[at] ?? '';
  const command = word.includes('/') ? word.replace(/^.*\//, '') : word;
  const rest = words.slice(at + 1);
  // Quoted text is data, not redirection: `python -c "print(1>0)"` writes nothing. A segment
  // without `>` redirects nothing: its quotes are not blanked for the pattern.
  const redirect = segment.includes('>')
    ? REDIRECT.exec(hasQuote(segment) ? segment.replace(QUOTED, "''") : segment)
    : null;
  if (redirect !== null && redirect[2] !== '/dev/null' && !(redirect[2] as string).startsWith('&')) {
    paths.push(redirect[2] as string);
    if (redirect[1] === '>') written.whole = true;
    return 'change';
  }
  if ((command === 'sed' || command === 'perl') && rest.some((w) => /^-[a-zA-Z]*i/.test(w))) {
    const target = rest[rest.length - 1];
    if (target !== undefined) paths.push(target);
    return 'change';
  }
  // A change command that names nothing to change (`create`, `rm` alone) writes nothing: it fails
  // with its usage, a call like any other.
  if (CHANGE_COMMANDS.has(command)) return rest.some((word) => word !== '') ? 'change' : 'probe';
  if (command === 'git') return GIT_READS.has(rest[0] ?? '') || rest.length === 0 ? 'read' : 'change';
  const python = /^python[\d.]*$/.test(command);
  const sub = python && rest[0] === '-m' ? rest[1] : undefined;
  if (PACKAGE_MANAGERS.has(sub ?? command)) {
    const verb = sub === undefined ? rest[0] : rest[2];
    if (PACKAGE_CHANGES.has(verb ?? '')) return 'change';
    return verb === undefined || PACKAGE_READS.has(verb) ? 'read' : 'probe';
  }
  if (python && rest[0] === 'setup.py') return 'change';
  if (
    command === 'make' &&
    (rest.length === 0 || /^(?:all|build|install|develop|clean)$/.test(rest[0] ?? ''))
  )
    return 'change';
  if (READ_COMMANDS.has(command) || command === '' || command.startsWith('#')) return 'read';
  return 'probe';
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
