import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { shellSegments } from '@loopguard/core/internal';
import { beforeToolCall, type HookEvent } from './hookEvent.js';
import { shellWords } from './shellWords.js';
import { type Pipes, promptReadsTerminal, type StartEnv, variable } from './terminalPrompts.js';

/**
 * A Codex call that starts a shell or an interpreter with no command to run (`sh`, `bash -i`,
 * `python3`): with `exec_command`'s `tty: true` it keeps running, and the model types commands
 * into it with `write_stdin`, which Codex 0.169.0 hands to no hook (stdin63). What it would run is
 * typed later, where loopguard neither refuses nor counts it; so the start is refused, under
 * whatever name it comes (trust64: `python3 -i x.py`, `node -r mod`, `busybox sh`, `cat | sh`,
 * `sh -c sh`, `script`, `tmux`, `screen`, `ssh host`, `sudo -s`, `su`; trust68: an `expect`
 * script that calls `interact`, read from the project's folder or the call's own text).
 */

/** What the model is told when such a call is refused: why, and what to do instead. */
export const TERMINAL_SHELL_REFUSED =
  'loopguard refused this call: a shell or interpreter started without a command (`sh`, `bash -i`, `python3`) runs what is typed into it later, which loopguard cannot see; run each command as a call of its own (`bash -lc "…"`, `python3 -c "…"`, a script file).';

/**
 * How a program's short options read (trust64): which give it its program (`-c`, `-e`: the text
 * runs, and a shell's is judged again, `sh -c sh`), which take a value (`node -r mod`, `perl
 * -Mstrict`, `bash -o vi`: the value is no script), which make it interactive whatever else it is
 * given (`python3 -i x.py`, `php -a`, `lua -i`), which read stdin (`sh -s`), and which exit at
 * once (a version, a help). A word that is none of them is its script: it runs that, not a prompt.
 */
interface Options {
  program: string;
  value: string;
  interactive: string;
  stdin: string;
  exits: string;
}

const option = (program: string, value: string, interactive = '', exits = 'vVh', stdin = ''): Options => ({
  program,
  value,
  interactive,
  stdin,
  exits,
});

/** The shells and interpreters that read typed commands when given none, with their options. */
const PROGRAMS: Array<[RegExp, Options]> = [
  [/^(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|tcsh|csh)$/, option('c', 'oO', '', '', 's')],
  [/^(?:python[\d.]*|ipython3?)$/, option('cm', 'WX', 'i')],
  [/^(?:node|nodejs)$/, option('epc', 'rC', '', 'vh')],
  [/^(?:deno|bun)$/, option('e', '', '', 'vh')],
  [/^(?:ruby|irb)$/, option('e', 'rIC', '', 'vh')],
  [/^perl$/, option('eE', 'MmI')],
  [/^php$/, option('rf', 'cdz', 'a')],
  [/^(?:lua(?:jit)?|julia)$/, option('eE', 'lLJ', 'i')],
  [/^tclsh$/, option('', '')],
  // expect: `-c` commands, `-i` its prompt; with neither a script nor `-c` it prompts
  [/^expect$/, option('c', 'D', 'i', 'v')],
];

/** Long options that give the program, exit, make it interactive, or take a value. */
const LONG_PROGRAM = /^--(?:command|eval|print|check)(?:=|$)/;
const LONG_EXITS = /^--(?:version|help)(?:=|$)/;
const LONG_VALUE = /^--(?:require|import|loader|experimental-loader|conditions|env-file|rcfile|init-file)$/;

/** Python modules that are themselves a prompt (`python3 -m code`, `-m pdb x.py`). */
const PROMPT_MODULE = /^(?:code|asyncio|pdb|IPython|ptpython|bpython)$/;

/** A program's text that opens a terminal of its own (`pty.spawn("/bin/bash")`, `code.interact()`). */
const OPENS_TERMINAL = /\bpty\.spawn\b|\bcode\.interact\b|^(?:.*[;\n]\s*)?interact\b/;

/** What may stand before the program: assignments, `exec`, `command`, `nohup`, `time`, `env` and its options. */
const PREFIX = /^(?:\w+=\S*|exec|command|nohup|time|env|-\S*)$/;

/** Value-taking options of `sudo`/`doas` and `ssh`, and `ssh`'s that open no shell or read no terminal (`-n`). */
const SUDO_VALUE = /^-[ugpCDhrtRUT]$/;
const SSH_VALUE = /^-[bcDEeFIiJLlmOopQRSWw]$/;
const SSH_NO_SHELL = /^-[46AaCfGgKkMNnqsTtVvXxYy]*[NVGOn]/;

/**
 * Where a call's commands run: the agent's environment, which Codex's `exec_command` passes on (a
 * `MANPAGER`), the project's folder (a script's path is read from it) and the call's whole text.
 */
interface Where {
  env: Record<string, string | undefined>;
  dir: string;
  command: string;
  /** The variables the command has set or unset before (`export GIT_PAGER=less;`, `unset X;`). */
  vars: Record<string, string | undefined>;
  /** The command runs in an emptied environment (`env -i sh -c …`, `sudo`'s reset one): only `vars` are set. */
  cleared?: boolean;
}

/** Whether any command of `text` (split at `;`, `&&`, `|`) reads typed commands from the terminal. */
function textReadsTerminal(text: string, ctx: Where): boolean {
  let from = 0;
  let before: string | undefined;
  // what a segment sets for the rest (trust68): Codex's `PAGER`s are exported, so an assignment is too
  const carried = { ...ctx, vars: { ...ctx.vars } };
  for (const segment of shellSegments(text)) {
    const at = text.indexOf(segment, from);
    from = at === -1 ? from : at + segment.length;
    const piped = at !== -1 && /(?<!\|)\|\s*$/.test(text.slice(0, at));
    // after a pipe it reads what the command before it reads: the terminal, for a bare `cat`
    const stdin = !piped || (before !== undefined && passesTerminal(before));
    if (readsTerminal(segment, { stdin, pipedOn: /^\s*\|(?!\|)/.test(text.slice(from)) }, carried))
      return true;
    before = segment;
  }
  return false;
}

/**
 * A segment that runs no program but sets variables for the rest of the command: bare assignments
 * (in `start`), `export NAME=VALUE`, `unset NAME`, `export -n NAME`; written into `vars`.
 */
function setsForTheRest(words: string[], start: StartEnv, vars: Record<string, string | undefined>): void {
  Object.assign(vars, start.vars);
  const unsets = words[0] === 'unset' || words[1] === '-n';
  for (const word of words.slice(1)) {
    const [, name, value] = /^(\w+)=(.*)$/s.exec(word) ?? [undefined, word, undefined];
    if (name !== undefined && /^\w+$/.test(name) && (unsets || value !== undefined))
      vars[name] = unsets ? undefined : value;
  }
}

/** Whether `segment` copies its stdin, the terminal, to its stdout (`cat`, `cat -`, `tee log`, `dd`). */
function passesTerminal(segment: string): boolean {
  const [program = '', ...args] = shellWords(segment);
  const operands = args.filter((word) => word === '-' || !word.startsWith('-'));
  if (program === 'cat') return operands.every((word) => word === '-');
  return program === 'tee' || (program === 'dd' && !args.some((word) => word.startsWith('if=')));
}

/**
 * Whether `segment` starts a shell, interpreter or login that reads its commands from the terminal,
 * or a program with a prompt and a shell escape (`terminalPrompts.ts`).
 */
function readsTerminal(segment: string, pipes: Pipes, ctx: Where): boolean {
  // a comment (a script's `#!/bin/bash` line) runs nothing; `<` gives it a file or a heredoc
  if (segment.startsWith('#') || segment.includes('<')) return false;
  const words = shellWords(segment);
  const start: StartEnv = {
    vars: { ...ctx.vars },
    cleared: ctx.cleared === true,
    user: ctx.env,
    dir: ctx.dir,
    command: ctx.command,
  };
  let at = 0;
  // an assignment's quoted value may hold a space (`GIT_PAGER="less -R"`)
  const prefix = (word: string) => PREFIX.test(word) || /^\w+=/.test(word);
  for (let inEnv = false; at < words.length && prefix(words[at] as string); at++) {
    const word = words[at] as string;
    const assignment = /^(\w+)=(.*)$/s.exec(word);
    if (assignment !== null) start.vars[assignment[1] as string] = assignment[2];
    inEnv ||= word === 'env';
    if (!inEnv || !word.startsWith('-')) continue;
    // `env -u NAME`, `-uNAME`, `--unset=NAME`; `-i`, `-`, `--ignore-environment`
    const unset = /^(?:-u|--unset=?)(.*)$/s.exec(word);
    if (unset !== null) start.vars[(unset[1] || words[++at]) ?? ''] = undefined;
    else if (/^-[a-zA-Z]*i|^-$|^--ignore-environment$/.test(word)) start.cleared = true;
  }
  if (at === words.length || words[at] === 'export' || words[at] === 'unset') {
    setsForTheRest(words.slice(at), start, ctx.vars);
    return false;
  }
  let program = (words[at] ?? '').split('/').pop() as string;
  // `busybox sh`: the applet is the program
  if ((program === 'busybox' || program === 'toybox') && at + 1 < words.length)
    program = words[++at] as string;
  const args = words.slice(at + 1);
  const inner = { ...ctx, vars: start.vars, cleared: start.cleared };
  // the command sudo runs, wherever its stdin comes from (`echo | sudo vim` reads the terminal)
  if (program === 'sudo' || program === 'doas') return sudoReadsTerminal(args, pipes, start, inner);
  const rule = (text: string) => textReadsTerminal(text, inner);
  if (promptReadsTerminal(program, args, pipes, rule, start)) return true;
  return pipes.stdin && shellReadsTerminal(program, args, inner);
}

/** Whether `program` given `args` is a shell, interpreter or login that reads the terminal. */
function shellReadsTerminal(program: string, args: string[], ctx: Where): boolean {
  switch (program) {
    case 'su':
      return loginReadsTerminal(args, /^(?:-c|--command)$/, ctx);
    case 'script':
      return loginReadsTerminal(args, /^(?:-c|--command)$/, ctx);
    case 'tmux':
      return tmuxAttaches(args);
    case 'screen':
      // detached (`-dm`, `-d -m`), or a listing: no terminal to type into
      return !(
        args.some((word) => /^-(?:[a-zA-Z]*d[a-zA-Z]*m|ls|list|wipe|X|Q|v|h)/.test(word)) ||
        (args.includes('-d') && args.includes('-m'))
      );
    case 'ssh':
      return sshReadsTerminal(args, ctx);
  }
  const options = PROGRAMS.find(([name]) => name.test(program))?.[1];
  return options !== undefined && interpreterReadsTerminal(program, options, args, ctx);
}

/** A shell or an interpreter: see {@link Options}. */
function interpreterReadsTerminal(program: string, options: Options, args: string[], ctx: Where): boolean {
  let interactive = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (word === '-') return true;
    if (word === '--' || word === 'repl') continue;
    // `node inspect`: its debugger's prompt runs code in the program (`exec`)
    if (word === 'inspect' && /^node/.test(program)) return true;
    if (word.startsWith('--')) {
      if (word === '--interactive') interactive = true;
      else if (LONG_EXITS.test(word)) return false;
      else if (LONG_PROGRAM.test(word)) return interactive;
      else if (LONG_VALUE.test(word)) index++;
      continue;
    }
    if (!/^[-+]/.test(word)) return interactive || (program === 'expect' && expectInteracts(word, ctx));
    const flags = word.slice(1);
    for (let char = 0; char < flags.length; char++) {
      const flag = flags[char] as string;
      const rest = flags.slice(char + 1);
      const value = rest !== '' ? rest : (args[index + 1] ?? '');
      if (options.exits.includes(flag)) return false;
      if (options.interactive.includes(flag)) interactive = true;
      else if (options.stdin.includes(flag)) return true;
      else if (options.program.includes(flag)) {
        // the program is given: a shell's command (its first operand) and a prompt module are
        // judged, the rest runs
        if (options.stdin !== '')
          return textReadsTerminal(args.slice(index + 1).find((next) => !/^[-+]/.test(next)) ?? '', ctx);
        if (flag === 'm' && /^python/.test(program)) return interactive || PROMPT_MODULE.test(value);
        return interactive || OPENS_TERMINAL.test(value);
      } else if (options.value.includes(flag)) {
        if (rest === '') index++;
        break;
      }
    }
  }
  return true;
}

/** An expect script's `interact` (at a line's start, after `;` or `{`): it hands the spawned program the terminal. */
const EXPECT_INTERACT = /(?:^|[;{])[ \t]*interact\b/m;

/** Longest expect script read (a larger one is judged by the call's text alone). */
const MAX_SCRIPT = 1 << 20;

/**
 * Whether the expect script `path` calls `interact`: its file's text, or the call's own (a heredoc
 * that writes the script in the same call, before the file exists).
 */
function expectInteracts(path: string, ctx: Where): boolean {
  if (EXPECT_INTERACT.test(ctx.command)) return true;
  try {
    const file = resolve(ctx.dir, path);
    return statSync(file).size <= MAX_SCRIPT && EXPECT_INTERACT.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/** A word as the shell would read it again as one (`"select 1"`): the words of a command put back together. */
function quoted(word: string): string {
  if (!/[\s'"`$\\;&|<>()]/.test(word)) return word;
  return word.includes("'") ? `"${word.replace(/["\\$`]/g, '\\$&')}"` : `'${word}'`;
}

/**
 * `sudo -s`, `sudo -i` with no command (at the terminal), or `sudo <a command that reads the
 * terminal>`, judged as the command that runs (trust70): in the environment sudo gives it,
 * emptied (sudoers' `env_reset`: a `GIT_PAGER=cat` before `sudo` does not reach git, whose pager is
 * then `less`) but for what `-E`/`--preserve-env` keeps; its own assignments (`sudo GIT_PAGER=cat
 * git log`) are read as the command's. doas resets it the same way.
 */
function sudoReadsTerminal(args: string[], pipes: Pipes, start: StartEnv, ctx: Where): boolean {
  let shell = false;
  let kept: 'all' | string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (word === '--' || !word.startsWith('-')) {
      const command = args.slice(word === '--' ? index + 1 : index);
      if (command.length === 0) break;
      const vars =
        kept === 'all' ? start.vars : Object.fromEntries(kept.map((name) => [name, variable(start, name)]));
      const env = { ...ctx, vars, cleared: kept === 'all' ? start.cleared : true };
      return readsTerminal(command.map(quoted).join(' '), pipes, env);
    }
    if (SUDO_VALUE.test(word)) index++;
    else if (word === '--preserve-env' || /^-[a-zA-Z]*E/.test(word)) kept = 'all';
    else if (word.startsWith('--preserve-env=')) kept = kept === 'all' ? kept : word.slice(15).split(',');
    else if (/^-[a-zA-Z]*[si]/.test(word) || word === '--shell' || word === '--login') shell = true;
  }
  return shell && pipes.stdin;
}

/** `su` and `script` start a login shell unless given a command (`-c`), which is judged. */
function loginReadsTerminal(args: string[], command: RegExp, ctx: Where): boolean {
  const at = args.findIndex((word) => command.test(word) || /^--command=/.test(word));
  if (at === -1) return true;
  const word = args[at] as string;
  return textReadsTerminal(word.startsWith('--command=') ? word.slice(10) : (args[at + 1] ?? ''), ctx);
}

/** `tmux`, `tmux new` without `-d`, `tmux attach`: a terminal the model types into. */
function tmuxAttaches(args: string[]): boolean {
  const at = args.findIndex(
    (word, index) => !word.startsWith('-') && !/^-[LSfcT]$/.test(args[index - 1] ?? ''),
  );
  const command = at === -1 ? 'new-session' : (args[at] as string);
  if (/^(?:attach|attach-session|a|at)$/.test(command)) return true;
  return (
    /^(?:new|new-session)$/.test(command) && !args.slice(at + 1).some((word) => /^-[a-zA-Z]*d/.test(word))
  );
}

/**
 * `ssh host` (no remote command: a login shell reading the terminal, `-T` or not), or a remote
 * command that reads the terminal. A git host's account (`git@github.com`, `-l git`) runs no shell
 * (git-shell or a forced command: a greeting, then exit), and `-n` gives the remote side no terminal.
 */
function sshReadsTerminal(args: string[], ctx: Where): boolean {
  let user = '';
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (SSH_NO_SHELL.test(word)) return false;
    if (word.startsWith('-l')) user = word === '-l' ? (args[index + 1] ?? '') : word.slice(2);
    if (SSH_VALUE.test(word)) index++;
    else if (!word.startsWith('-')) {
      const remote = args.slice(index + 1);
      if (remote.length > 0) return textReadsTerminal(remote.join(' '), ctx);
      return (/^([^@]*)@/.exec(word)?.[1] ?? user) !== 'git';
    }
  }
  return false;
}

/**
 * Why the Codex call is refused, or `undefined`: refused when one of its commands (split at `;`,
 * `&&`, `|`, …) is a shell or interpreter given no command, whose stdin is the terminal (not a
 * pipe, `sh < x`, or a heredoc).
 * @param env - the agent's environment, which Codex passes on to the command (default: this
 *   process's, a child of the agent).
 * @example terminalShellRefusal({ kind: 'before_tool', tool: 'shell', input: { command: 'sh' }, ... }); // TERMINAL_SHELL_REFUSED
 */
export function terminalShellRefusal(
  event: HookEvent,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const command = beforeToolCall(event)?.input.command;
  if (typeof command !== 'string') return undefined;
  const ctx = { env, dir: event.projectDir, command, vars: {} };
  return textReadsTerminal(command, ctx) ? TERMINAL_SHELL_REFUSED : undefined;
}
