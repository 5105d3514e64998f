import { shellSegments } from '@loopguard/core/internal';
import type { HookEvent } from './hookEvent.js';

/**
 * A Codex call that starts a shell or an interpreter with no command to run (`sh`, `bash -i`,
 * `python3`): with `exec_command`'s `tty: true` it keeps running, and the model types commands
 * into it with `write_stdin`, which Codex 0.169.0 hands to no hook (stdin63). What it would run is
 * typed later, where loopguard neither refuses nor counts it; so the start is refused.
 */

/** What the model is told when such a call is refused: why, and what to do instead. */
export const TERMINAL_SHELL_REFUSED =
  'loopguard refused this call: a shell or interpreter started without a command (`sh`, `bash -i`, `python3`) runs what is typed into it later, which loopguard cannot see; run each command as a call of its own (`bash -lc "…"`, `python3 -c "…"`, a script file).';

/** Shells: a cluster of short options with `c` gives the command, one with `s` reads it from stdin. */
const SHELLS = /^(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|tcsh|csh)$/;

/** Interpreters with a prompt or a program read from stdin when started with none. */
const INTERPRETERS =
  /^(?:python[\d.]*|ipython3?|node|nodejs|deno|bun|ruby|irb|perl|php|lua(?:jit)?|tclsh|julia)$/;

/**
 * Options that give an interpreter its program (`-c`, `-e`, `-E`, `-m`, `-p`, `-r`) or make it
 * exit at once (`-V`, `-v`, `-h`: its version, its help).
 */
const PROGRAM_OPTION = /[ceEmprVvh]/;
const PROGRAM_LONG_OPTION = /^--(?:command|eval|print|version|help)(?:=|$)/;

/** What may stand before the program: assignments, `exec`, `command`, `nohup`, `time`, `env` and its options. */
const PREFIX = /^(?:\w+=\S*|exec|command|nohup|time|env|-\S*)$/;

/**
 * Why the Codex call is refused, or `undefined`: refused when one of its commands (split at `;`,
 * `&&`, `|`, …) is a shell or interpreter given no command, whose stdin is the terminal (not a
 * pipe, `sh < x`, or a heredoc).
 * @example terminalShellRefusal({ kind: 'before_tool', tool: 'shell', input: { command: 'sh' }, ... }); // TERMINAL_SHELL_REFUSED
 */
export function terminalShellRefusal(event: HookEvent): string | undefined {
  if (event.kind !== 'before_tool' || typeof event.input !== 'object' || event.input === null)
    return undefined;
  const command = (event.input as Record<string, unknown>).command;
  if (typeof command !== 'string') return undefined;
  let from = 0;
  for (const segment of shellSegments(command)) {
    const at = command.indexOf(segment, from);
    from = at === -1 ? from : at + segment.length;
    if (readsTerminal(segment) && !(at !== -1 && /(?<!\|)\|\s*$/.test(command.slice(0, at))))
      return TERMINAL_SHELL_REFUSED;
  }
  return undefined;
}

/** Whether `segment` starts a shell or interpreter that reads its commands from the terminal. */
function readsTerminal(segment: string): boolean {
  // a comment (a script's `#!/bin/bash` line) runs nothing; `<` gives it a file or a heredoc
  if (segment.startsWith('#') || segment.includes('<')) return false;
  const words = segment.split(/\s+/).map((word) => word.replace(/^['"]|['"]$/g, ''));
  let at = 0;
  while (at < words.length && PREFIX.test(words[at] as string)) at++;
  const program = (words[at] ?? '').split('/').pop() as string;
  const shell = SHELLS.test(program);
  if (!shell && !INTERPRETERS.test(program)) return false;
  for (const word of words.slice(at + 1)) {
    if (word === '-') return true;
    if (word === '--' || word === 'repl') continue;
    if (word.startsWith('--')) {
      if (PROGRAM_LONG_OPTION.test(word)) return false;
      continue;
    }
    if (!word.startsWith('-')) return false;
    const flags = word.slice(1);
    if (shell ? flags.includes('c') : PROGRAM_OPTION.test(flags)) return false;
    if (shell && flags.includes('s')) return true;
  }
  return true;
}
