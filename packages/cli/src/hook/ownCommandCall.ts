import { shellSegments } from '@loopguard/core/internal';
import { shellWords } from './shellWords.js';

/**
 * loopguard's own commands run by the model it guards (trust70), read word by word where loopguard
 * is the program a command runs (a `grep` or a commit message that names them is left alone):
 * - `own`: a command that weakens the guard or undoes the user's decision: `init … --timeout N`
 *   below {@link MIN_HOOK_TIMEOUT_SECONDS} (a hook call cut short fails open), `init … --replace`
 *   (it takes out loopguard's hooks of the other scope and the user's status line), `reset` (a run's
 *   breaker closed) and `resume` (a run the breaker stopped started again);
 * - `others`: a command that reads other sessions' records: `status` but for `--session <this
 *   session>`, `recoveries` (every session's entries) and `serve` (the dashboard of every session).
 * `--help` is left alone. The words before the program may be assignments, `sudo`, `env`, `npx`,
 * `pnpm exec`, `node` and their like; a shell's `-c` text is read the same way.
 */
export type OwnCommandKind = 'own' | 'others';

/** The shortest hook timeout the model may set, seconds: `init`'s default. */
export const MIN_HOOK_TIMEOUT_SECONDS = 10;

/** Words that may stand before the program: assignments, wrappers and their options, launchers. */
const PREFIX =
  /^(?:\w+=.*|sudo|doas|env|exec|command|nohup|time|nice|timeout|\d+(?:\.\d+)?[smhd]?|npx|bunx|dlx|x|-\S*)$/;

/** A launcher whose next word may be a subcommand of its own (`pnpm exec`, `yarn dlx`, `npm exec`, `bun x`). */
const LAUNCHER = /^(?:pnpm|yarn|npm|bun)$/;

/** The program word that is loopguard: its command, its package, or a `bin.js` in a path naming it. */
const LOOPGUARD_PROGRAM = /^(?:(?:\S*\/)?loopguard|@loopguard\/cli|loopguard@\S+|@loopguard\/cli@\S+)$/;
const LOOPGUARD_BIN = /loopguard\S*\/bin\.js$/;

/** A shell whose `-c` text is a command of its own. */
const SHELL = /^(?:\S*\/)?(?:sh|bash|zsh|dash|ksh)$/;

/** How `command` runs loopguard against the guard or other sessions, `undefined` when it does not. */
export function ownCommandKind(command: string, sessionId: string): OwnCommandKind | undefined {
  if (!/loopguard/.test(command)) return undefined;
  for (const segment of shellSegments(command)) {
    const kind = segmentKind(shellWords(segment), sessionId);
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/** The kind of one simple command, by its words. */
function segmentKind(words: string[], sessionId: string): OwnCommandKind | undefined {
  let at = 0;
  while (at < words.length && (PREFIX.test(words[at] as string) || LAUNCHER.test(words[at] as string))) at++;
  const program = words[at] ?? '';
  if (SHELL.test(program)) {
    const flag = words.findIndex((word, index) => index > at && /^-[a-z]*c[a-z]*$/.test(word));
    const text = flag === -1 ? undefined : words[flag + 1];
    return text === undefined ? undefined : ownCommandKind(text, sessionId);
  }
  if (/^(?:\S*\/)?node$/.test(program)) {
    const script = words.slice(at + 1).find((word) => !word.startsWith('-'));
    if (script === undefined || !LOOPGUARD_BIN.test(script)) return undefined;
    at = words.indexOf(script, at + 1);
  } else if (!LOOPGUARD_PROGRAM.test(program)) return undefined;
  const args = words.slice(at + 1);
  if (args.some((word) => word === '--help' || word === '-h')) return undefined;
  return commandKind(args[0] ?? '', args.slice(1), sessionId);
}

/** The value of the option `name` among `args` (`--name v`, `--name=v`), `undefined` when not given. */
function optionValue(args: string[], name: string): string | undefined {
  for (let index = args.length - 1; index >= 0; index--) {
    const word = args[index] as string;
    if (word === name) return args[index + 1] ?? '';
    if (word.startsWith(`${name}=`)) return word.slice(name.length + 1);
  }
  return undefined;
}

/** The kind of loopguard's `subcommand` given `args`. */
function commandKind(subcommand: string, args: string[], sessionId: string): OwnCommandKind | undefined {
  switch (subcommand) {
    case 'init': {
      const timeout = optionValue(args, '--timeout');
      const lowered = timeout !== undefined && !(Number(timeout) >= MIN_HOOK_TIMEOUT_SECONDS);
      return lowered || args.includes('--replace') ? 'own' : undefined;
    }
    case 'reset':
    case 'resume':
      return 'own';
    case 'recoveries':
    case 'serve':
      return 'others';
    case 'status':
      return sessionId !== '' && optionValue(args, '--session') === sessionId ? undefined : 'others';
    default:
      return undefined;
  }
}
