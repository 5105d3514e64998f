import { gitConfigMayPage } from './gitConfigPager.js';

/**
 * Programs that are not shells but read commands from the terminal and run a shell command from
 * there (shell66): a database client (`sqlite3`'s `.shell`, `psql`'s `\!`, `mysql`'s `system`), a
 * debugger (`gdb`'s `shell`, `lldb`'s `platform shell`), an editor (`vim`'s `:!`, `nano`'s
 * execute, `emacs`'s `M-!`), a pager (`less`'s `!`), and a container's process given the
 * terminal (`docker run -i`, `kubectl exec -i`). What the model types into them through Codex's
 * `write_stdin` runs unseen, as in a shell: each is read by `terminalShellCall.ts`'s rule.
 * So are git's and man's pager where the command gives them one that reads keys (trust67: Codex
 * 0.169.0 starts `exec_command` with `PAGER=cat` and `GIT_PAGER=cat`, its `UNIFIED_EXEC_ENV`),
 * telnet (its prompt's `!`) and mosh (a remote login, as `ssh host` is); and (trust68) gh's pager
 * (`GH_PAGER`, also `cat` under Codex), ftp's, lftp's and sftp's prompts (a local shell at `!`),
 * `docker start -i` and `docker compose exec|run` (the service's process given stdin); and
 * (codex71, gitedit71) the editor git opens (`git commit`'s message, `git tag -a`'s, `git rebase
 * -i`'s list of commits).
 */

/** Whether a command's text reads typed commands from the terminal (the terminal rule, for a container's command). */
type TextRule = (text: string) => boolean;

/**
 * Each program's words that give it its commands, or make it exit (a version, a help), or that
 * read no terminal (`gdb -batch`): given one, it opens no prompt.
 */
const GIVEN: Array<[RegExp, RegExp]> = [
  [/^psql$/, /^-[AaBbEeHnqSsXxtz0]*[clfV?]|^--(?:command|file|list|version|help)\b/],
  [/^(?:mysql|mariadb)$/, /^-[BNnrstvXw]*[eV?]|^--(?:execute|version|help)\b/],
  [/^gdb$/, /^--?(?:batch|batch-silent|version|help|configuration)$/],
  [/^lldb$/, /^-[bvh]$|^--(?:batch|version|help)$/],
  [/^(?:vim?|nvim|gvim)$/, /^--(?:version|help|headless)$|^-h$/],
  [/^nano$/, /^-[Vh]$|^--(?:version|help)$/],
  [/^emacs$/, /^--(?:batch|script|version|help)\b/],
  [/^(?:less|more|most)$/, /^-V$|^--(?:version|help)$/],
  [/^telnet$/, /^--?(?:version|help)$/],
  // ftp's and lftp's prompts run a local shell at `!`; lftp's `-c`/`-f` run commands and exit
  [/^ftp$/, /^--?(?:version|help)$/],
  [/^lftp$/, /^-[cf]|^--(?:version|help)$/],
  // tftp's prompt (tftp-hpa) writes the files it is told to `get`; `-c` gives it its command (trust70)
  [/^tftp$/, /^-c$|^-V$|^--?(?:version|help)$/],
];

/**
 * The environment a command starts with: Codex's `exec_command`'s (the agent's, with `PAGER` and
 * `GIT_PAGER` set to `cat`), as the command's assignments, `env -u` (`undefined`) and `env -i`
 * (`cleared`) change it.
 */
export interface StartEnv {
  /** The variables the command sets (`undefined`: unset). */
  vars: Record<string, string | undefined>;
  /** The command starts from an empty environment (`env -i`). */
  cleared: boolean;
  /** The agent's environment. */
  user: Record<string, string | undefined>;
  /** The project's folder, where git finds its repository. */
  dir: string;
  /** The call's whole text. */
  command: string;
}

/** A variable of the command's environment, `undefined` when unset. */
export function variable(start: StartEnv, name: string): string | undefined {
  if (name in start.vars) return start.vars[name];
  if (start.cleared) return undefined;
  return /^(?:PAGER|GIT_PAGER|GH_PAGER)$/.test(name) ? 'cat' : start.user[name];
}

/** A pager that reads no keys (`cat`, none); `undefined` is the program's default, `less`. */
const QUIET_PAGER = /^\s*(?:(?:\S*\/)?(?:cat|tee|head|tail))?(?:\s|$)/;
const pages = (pager: string | undefined) => pager === undefined || !QUIET_PAGER.test(pager);

/** A command whose output goes to a file or to another command: nothing is paged. */
const outputTaken = (args: string[], pipes: Pipes) =>
  pipes.pipedOn || args.some((word) => /^(?:1?>|&>)/.test(word));

/**
 * git pages through `GIT_PAGER` (else `pager.<command>` or `core.pager`, which its configuration may
 * name, then `PAGER`), unless `--no-pager`/`-P` or its output is taken; gh through `GH_PAGER` (else its
 * config's `pager`, then `PAGER`: gh 2's `ioStreams`). Codex sets both variables to `cat`: a pager
 * runs where the command sets one, or unsets the variable; then `fallback` says what comes after it
 * (`undefined`: not read, the program's default `less`, the safe side).
 */
function pagerVariablePages(
  name: string,
  args: string[],
  pipes: Pipes,
  start: StartEnv,
  fallback: () => string | undefined = () => undefined,
): boolean {
  if (outputTaken(args, pipes) || args.some((word) => word === '--no-pager' || word === '-P')) return false;
  if (!(name in start.vars) && !start.cleared) return false;
  return pages(variable(start, name) ?? fallback());
}

/**
 * git's pager where the command leaves `GIT_PAGER` unset (trust71): the `PAGER` the command sets
 * itself (`env -i PAGER=cat git log`), where git's configuration names none ({@link gitConfigMayPage});
 * else `undefined`. The agent's own `PAGER` is not read in its place: the command that removes
 * `GIT_PAGER` and leaves `PAGER` to the agent stays refused, as trust67 chose.
 */
function gitFallbackPager(args: string[], start: StartEnv): string | undefined {
  const pager = start.vars.PAGER;
  if (pager === undefined) return undefined;
  return gitConfigMayPage(start.dir, args, (name) => variable(start, name), start.command)
    ? undefined
    : pager;
}

/** git's options before its command that take a value (`-C dir`, `-c name=value`). */
const GIT_VALUE = /^-[Cc]$|^--(?:git-dir|work-tree|namespace|exec-path|config-env)$/;

/** git's commands that page their output (git 2's `USE_PAGER` commands, and `pager.<cmd>`'s defaults). */
const GIT_PAGES = /^(?:log|show|diff|grep|blame|annotate|shortlog|reflog|whatchanged|range-diff)$/;

/** `git branch`'s and `git tag`'s options that do something other than list (create, delete, move, set). */
const GIT_NOT_LIST: Record<string, RegExp> = {
  branch:
    /^-[a-zA-Z]*[dDmMcCuf]|^--(?:delete|move|copy|set-upstream-to|unset-upstream|edit-description|show-current|force)\b/,
  tag: /^-[a-zA-Z]*[adsfmFu]|^--(?:delete|annotate|sign|message|file|force|local-user)\b/,
};

/** git's own options, before its command: where the command is, and what they set. */
interface GitOptions {
  /** The index of git's command in its arguments (their length when none is given). */
  at: number;
  /** `-p`/`--paginate`: the command pages whatever it is. */
  paginate: boolean;
  /** The editors `-c core.editor=…` (`message`) and `-c sequence.editor=…` (`sequence`) name. */
  editors: Partial<Record<GitEditor, string>>;
}

/** Reads git's own options, before its command (`git -C sub -c core.editor=true commit`). */
function gitOptions(args: string[]): GitOptions {
  const options: GitOptions = { at: 0, paginate: false, editors: {} };
  for (; options.at < args.length && (args[options.at] as string).startsWith('-'); options.at++) {
    const word = args[options.at] as string;
    if (word === '-p' || word === '--paginate') options.paginate = true;
    const config = /^(core|sequence)\.editor=(.*)$/is.exec(args[options.at + 1] ?? '');
    if (word === '-c' && config !== null)
      options.editors[config[1]?.toLowerCase() === 'core' ? 'message' : 'sequence'] = config[2] as string;
    if (GIT_VALUE.test(word)) options.at++;
  }
  return options;
}

/**
 * Whether git's command pages (trust70): `-p`/`--paginate` before it makes any command page; else
 * only those that page by default ({@link GIT_PAGES}), `branch` and `tag` when they list (no name
 * given, nor an option that creates, deletes or moves one; `-l`/`--list` always lists), and
 * `stash list` and `stash show`. `git commit`, `push`, `status` page nothing.
 */
function gitPages(args: string[]): boolean {
  const { at, paginate } = gitOptions(args);
  if (paginate) return true;
  const command = args[at];
  const rest = args.slice(at + 1);
  if (command === undefined) return false;
  if (GIT_PAGES.test(command)) return true;
  if (command === 'stash') return rest[0] === 'list' || rest[0] === 'show';
  if (command !== 'branch' && command !== 'tag') return false;
  if (rest.some((word) => word === '-l' || word === '--list')) return true;
  return !rest.some((word) => !word.startsWith('-') || (GIT_NOT_LIST[command] as RegExp).test(word));
}

/** An editor that reads no keys (`true`, `:`, `cat`, `sed -i …`, none): git runs it and goes on. */
const QUIET_EDITOR = /^\s*(?:(?:\S*\/)?(?:true|false|:|cat|echo|printf|sed|tee|head|tail|touch))?(?:\s|$)/;

/** `git commit`'s long options that give its message or commit nothing, and those that take a value. */
const COMMIT_GIVEN = /^--(?:message|file|reuse-message|no-edit|dry-run|help)(?:=|$)/;
const COMMIT_VALUE =
  /^--(?:message|file|reuse-message|reedit-message|template|author|date|cleanup|trailer|squash|fixup|pathspec-from-file|gpg-sign)$/;

/**
 * Whether `git commit`'s arguments open the editor for its message: unless `-m`, `-F`, `-C`,
 * `--no-edit`, `--fixup <commit>` (not `amend:`/`reword:`), `--dry-run` or a help gives it or
 * commits nothing; `-e`/`--edit` opens it whatever else is given (`-c`, `-t`, `--squash` edit).
 */
function commitEdits(args: string[]): boolean {
  let given = false;
  let edit = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (word === '--') break;
    if (word === '-e' || word === '--edit') edit = true;
    else if (word.startsWith('--fixup')) {
      const value = word.startsWith('--fixup=') ? word.slice(8) : (args[++index] ?? '');
      given ||= !/^(?:amend|reword):/.test(value);
    } else if (word.startsWith('--')) {
      given ||= COMMIT_GIVEN.test(word);
      if (COMMIT_VALUE.test(word)) index++;
    } else if (word.startsWith('-')) {
      // a group of short options (`-am "msg"`): one that takes a value ends it, the rest is that value
      for (const [char, flag] of [...word.slice(1)].entries()) {
        if (flag === 'e') edit = true;
        if (flag === 'h') given = true;
        if (!'mFCctSu'.includes(flag)) continue;
        given ||= 'mFC'.includes(flag);
        if (char === word.length - 2 && 'mFCct'.includes(flag)) index++;
        break;
      }
    }
  }
  return edit || !given;
}

/**
 * The options among a git command's arguments, up to `--`, by name (`-am x`: `-a`, `-m`; `--file=x`:
 * `--file`); the value of those `value` matches is skipped.
 */
function gitFlags(args: string[], value: RegExp): string[] {
  const flags: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (word === '--') break;
    if (word.startsWith('--')) {
      const name = word.replace(/=.*/s, '');
      flags.push(name);
      if (name === word && value.test(name)) index++;
    } else if (/^-./.test(word)) {
      // a group of short options: one that takes a value ends it, the rest is that value
      for (const [char, letter] of [...word.slice(1)].entries()) {
        flags.push(`-${letter}`);
        if (!value.test(`-${letter}`)) continue;
        if (char === word.length - 2) index++;
        break;
      }
    }
  }
  return flags;
}

/** Whether one of `flags` is among `names`. */
const has = (flags: string[], names: RegExp) => flags.some((flag) => names.test(flag));

/** `-e`/`--edit`, unless a later `--no-edit` takes it back. */
function editAsked(flags: string[]): boolean {
  const at = (names: RegExp) => flags.map((flag) => names.test(flag)).lastIndexOf(true);
  return at(/^(?:-e|--edit)$/) > at(/^--no-edit$/);
}

/** The options of `tag`, `rebase`, `cherry-pick`/`revert`/`merge` and `notes` that take a value. */
const TAG_VALUE = /^-[umF]$|^--(?:local-user|message|file|cleanup|trailer|sort|format|points-at)$/;
const REBASE_VALUE = /^-[xsXC]$|^--(?:onto|exec|strategy|strategy-option|whitespace|empty)$/;
const PICK_VALUE = /^-[mFX]$|^--(?:mainline|message|file|strategy|strategy-option|cleanup|into-name)$/;
const NOTES_VALUE = /^-[mFcC]$|^--(?:message|file|reedit-message|reuse-message)$/;

/** `cherry-pick`'s, `revert`'s and `merge`'s arguments ask for the editor (`-e`). */
const editAskedIn = (args: string[]) => editAsked(gitFlags(args, PICK_VALUE));

/**
 * `git tag` opens the editor where it makes an annotated tag (`-a`, `-s`, `-u`) without a message
 * (`-m`, `-F`), or with one and `-e`; listing, deleting or verifying (`-l`, `-d`, `-v`) makes none.
 */
function tagEdits(args: string[]): boolean {
  const flags = gitFlags(args, TAG_VALUE);
  const given = has(flags, /^-[mF]$|^--(?:message|file)$/);
  if (has(flags, /^-[ldv]$|^--(?:list|delete|verify)$/)) return false;
  if (!given && !has(flags, /^-[asu]$|^--(?:annotate|sign|local-user)$/)) return false;
  return !given || editAsked(flags);
}

/**
 * `git notes [--ref r] add|append|edit` opens the editor unless `-m`, `-F` or `-C` gives the note;
 * `-c` and `-e` edit it.
 */
function notesEdit(args: string[]): boolean {
  let at = 0;
  for (; at < args.length && (args[at] as string).startsWith('-'); at++) if (args[at] === '--ref') at++;
  if (!/^(?:add|append|edit)$/.test(args[at] ?? '')) return false;
  const flags = gitFlags(args.slice(at + 1), NOTES_VALUE);
  const given = has(flags, /^-[mFC]$|^--(?:message|file|reuse-message)$/);
  return !given || editAsked(flags) || has(flags, /^-c$|^--reedit-message$/);
}

/** The editor git opens: its own (`message`), or the rebase's list of commits (`sequence`). */
type GitEditor = 'message' | 'sequence';

/**
 * git's commands that can open an editor, the editors they can open, and whether their arguments
 * do (gitedit71; checked with git 2.39): `revert` and `merge` without `-e` edit only when stdin is
 * a terminal, which the rule does not know, and are left alone; `-e` with `-n`/`--no-commit`/
 * `--squash` is read as editing. `rebase -i` opens its list, then the message editor for each
 * `reword` or `squash` the list holds, which a quiet list editor can write (`sed s/pick/reword/`)
 * and `--autosquash` or the repository's `rebase.autoSquash` writes itself: both must read no keys.
 */
const GIT_EDITS = new Map<string, [GitEditor[], (args: string[]) => boolean]>([
  ['commit', [['message'], commitEdits]],
  ['tag', [['message'], tagEdits]],
  [
    'rebase',
    [
      ['sequence', 'message'],
      (args) => has(gitFlags(args, REBASE_VALUE), /^-i$|^--(?:interactive|edit-todo)$/),
    ],
  ],
  ['cherry-pick', [['message'], editAskedIn]],
  ['revert', [['message'], editAskedIn]],
  ['merge', [['message'], editAskedIn]],
  ['notes', [['message'], notesEdit]],
]);

/** The variable that names each editor, before the configuration (`core.editor`, `sequence.editor`). */
const EDITOR_VARIABLE: Record<GitEditor, string> = { message: 'GIT_EDITOR', sequence: 'GIT_SEQUENCE_EDITOR' };

/**
 * Whether git opens an editor that reads the terminal (codex71, gitedit71): a command of
 * {@link GIT_EDITS} whose arguments open its editors, one of which is not named, as one that reads
 * no keys ({@link QUIET_EDITOR}), in `GIT_EDITOR` (`GIT_SEQUENCE_EDITOR` for `rebase -i`'s list),
 * else in `-c core.editor=…` (`-c sequence.editor=…`). git reads the repository's `core.editor` before `EDITOR`, and its
 * `sequence.editor` before `GIT_EDITOR` (the model can write both: `git config core.editor vim`),
 * and under Codex's `TERM=dumb` takes neither `VISUAL` nor its default `vi`: no other variable
 * tells that no editor opens.
 */
function gitEdits(args: string[], start: StartEnv): boolean {
  const { at, editors } = gitOptions(args);
  const [opens, edits] = GIT_EDITS.get(args[at] ?? '') ?? [];
  if (opens === undefined || !edits?.(args.slice(at + 1))) return false;
  return opens.some((editor) => {
    const chosen = variable(start, EDITOR_VARIABLE[editor]) ?? editors[editor];
    return chosen === undefined || !QUIET_EDITOR.test(chosen);
  });
}

/** man's options that print no page (`-k`, `-f`, `-w`, a version). */
const MAN_NO_PAGE =
  /^-[a-zA-Z]*[fkwWtV?]$|^--(?:whatis|apropos|where|path|location|version|help|usage|troff)\b/;

/** man pages through `-P`/`--pager`, else `MANPAGER`, else `PAGER`, unless its output is taken. */
function manPages(args: string[], pipes: Pipes, start: StartEnv): boolean {
  if (outputTaken(args, pipes) || args.some((word) => MAN_NO_PAGE.test(word))) return false;
  const at = args.findIndex((word) => /^-P|^--pager(?:=|$)/.test(word));
  const option = args[at] ?? '';
  const given =
    at === -1
      ? undefined
      : /^-P.|^--pager=/.test(option)
        ? option.replace(/^-P|^--pager=/, '')
        : args[at + 1];
  return pages(given ?? variable(start, 'MANPAGER') ?? variable(start, 'PAGER'));
}

/** `mosh [options] host [--] [command]`: a login shell, or the command, judged. */
function moshReadsTerminal(args: string[], rule: TextRule): boolean {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (/^--(?:version|help)$/.test(word)) return false;
    if (/^-[p]$/.test(word)) index++;
    else if (!word.startsWith('-')) {
      const command = args.slice(index + 1);
      if (command[0] === '--') command.shift();
      return command.length === 0 || rule(command.join(' '));
    }
  }
  return false;
}

/** `sqlite3`'s options that take a value (`-cmd ".mode box"` runs it, then the prompt opens). */
const SQLITE_VALUE =
  /^--?(?:cmd|init|separator|newline|nullvalue|mmap|heap|lookaside|pagecache|vfs|maxsize|escape)$/;
const SQLITE_EXITS = /^--?(?:version|help|A|archive)$/;

/**
 * `sqlite3 [options] [FILE] [SQL…]`: its prompt opens (or, with `-batch`, it reads the terminal
 * line by line) unless SQL is given after the file.
 */
function sqliteReadsTerminal(args: string[]): boolean {
  const operands: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    if (SQLITE_EXITS.test(word)) return false;
    if (SQLITE_VALUE.test(word)) index++;
    else if (!word.startsWith('-')) operands.push(word);
  }
  return operands.length < 2;
}

/** A `vim` command that quits (`-c wq`, `+qa!`, `-c '%s/a/b/' -c x`): given it, the editor runs it and exits. */
const VIM_QUITS = /^(?:.*\|)?\s*(?:wq?a?|xa?|qa?|wqa)!?\s*$/;

/** Whether `vim`'s `-c` or `+` commands end it. */
function vimQuits(args: string[]): boolean {
  return args.some(
    (word, index) =>
      (args[index - 1] === '-c' || word.startsWith('+')) && VIM_QUITS.test(word.replace(/^\+/, '')),
  );
}

/** `psql -f -`: its file is the terminal. */
function psqlStdin(args: string[]): boolean {
  return args.some((word, index) => (word === '-f' || word === '--file') && args[index + 1] === '-');
}

/** `docker`/`podman`'s options of `run` and `exec` that take no value; every other one does. */
const DOCKER_FLAGS =
  /^--(?:rm|init|privileged|read-only|interactive|tty|detach|publish-all|quiet|no-healthcheck|oom-kill-disable|sig-proxy)$/;

/**
 * `docker run|exec|attach`, `podman …`: with `-i` (`--interactive`) the container's process reads
 * the terminal. `run`'s command after the image (`exec`'s after the container) is judged by the
 * terminal rule; none given runs the image's own (a shell for `ubuntu`, a REPL for `node`).
 */
function containerReadsTerminal(args: string[], rule: TextRule): boolean {
  const from = args[0] === 'container' ? 1 : 0;
  const command = args[from];
  if (command === 'attach') return !args.includes('--no-stdin');
  // `docker start -i`: attaches the container's stdin, as `attach` does
  if (command === 'start') return args.some((word) => /^-[a]*i[a]*$|^--interactive(?:=true)?$/.test(word));
  if (command === 'compose') return composeReadsTerminal(args.slice(from + 1), rule);
  if (command !== 'run' && command !== 'exec') return false;
  let interactive = false;
  for (let index = from + 1; index < args.length; index++) {
    const word = args[index] as string;
    if (word === '--interactive' || word === '--interactive=true') interactive = true;
    else if (/^-[ditPq]+$/.test(word)) interactive ||= word.includes('i');
    else if (word.startsWith('--')) {
      if (!DOCKER_FLAGS.test(word) && !word.includes('=')) index++;
    } else if (word.startsWith('-')) {
      // a short option that takes a value (`-v a:b`, `-p8080:80`)
      if (word.length === 2) index++;
    } else {
      // the image (or the container): what follows is its command
      const rest = args.slice(index + 1);
      return interactive && (rest.length === 0 || rule(rest.join(' ')));
    }
  }
  return false;
}

/** `docker compose`'s options that take a value, before its command. */
const COMPOSE_VALUE =
  /^-[fp]$|^--(?:file|project-name|profile|env-file|project-directory|ansi|progress|parallel)$/;
/** `compose exec`'s and `run`'s options that take no value; every other one does. */
const COMPOSE_FLAGS =
  /^-[TP]+$|^--(?:no-TTY|rm|privileged|no-deps|service-ports|use-aliases|build|remove-orphans|quiet-pull|tty|interactive)$/;

/**
 * `docker compose exec|run` (`docker-compose …`): stdin is given to the service's process unless
 * `-d` or `--interactive=false` (`-T` takes only its pseudo-terminal); its command is judged, and
 * `run` without one runs the service's own (a shell for a dev container).
 */
function composeReadsTerminal(args: string[], rule: TextRule): boolean {
  let index = 0;
  for (; index < args.length && (args[index] as string).startsWith('-'); index++)
    if (COMPOSE_VALUE.test(args[index] as string)) index++;
  const command = args[index];
  if (command !== 'exec' && command !== 'run') return false;
  for (index++; index < args.length; index++) {
    const word = args[index] as string;
    if (/^-[a-zA-Z]*d[a-zA-Z]*$|^--detach$|^--interactive=false$/.test(word)) return false;
    if (!word.startsWith('-')) {
      const rest = args.slice(index + 1);
      return rest.length === 0 || rule(rest.join(' '));
    }
    if (!COMPOSE_FLAGS.test(word) && !word.includes('=')) index++;
  }
  return false;
}

/** `sftp` opens its prompt (its `!` runs a local shell) unless given a batch file (`-b FILE`, not `-`). */
function sftpReadsTerminal(args: string[]): boolean {
  const at = args.findIndex((word) => word.startsWith('-b'));
  return at === -1 || (args[at] === '-b' ? args[at + 1] : (args[at] as string).slice(2)) === '-';
}

/**
 * `kubectl exec|run|attach` with `-i` (`--stdin`): the pod's process reads the terminal. The
 * command after `--` is judged; `run` without one runs the image's own, `attach` the pod's.
 */
function kubectlReadsTerminal(args: string[], rule: TextRule): boolean {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  const interactive = options.some((word) => /^-[it]*i[it]*$|^--stdin(?:=true)?$/.test(word));
  if (!interactive || !/^(?:exec|run|attach)$/.test(args[0] ?? '')) return false;
  if (end === -1) return args[0] !== 'exec' || rule(args.at(-1) ?? '');
  return rule(args.slice(end + 1).join(' '));
}

/** Programs that read their keys from the terminal itself (`/dev/tty`), whatever their stdin. */
const READS_TTY = /^(?:vim?|nvim|gvim|nano|emacs|less|more|most)$/;

/** Where a command's stdin comes from and its stdout goes. */
export interface Pipes {
  /** Its stdin is the terminal (not a pipe from a command that does not pass it on). */
  stdin: boolean;
  /** Its stdout goes to another command (`less x | head`): a pager then passes its text on. */
  pipedOn: boolean;
}

/**
 * Whether `program` given `args` reads commands it can run a shell with from the terminal (see the
 * file's comment); `rule` judges a container's command as the terminal rule does; `start` is the
 * environment the command starts with.
 */
export function promptReadsTerminal(
  program: string,
  args: string[],
  pipes: Pipes,
  rule: TextRule,
  start: StartEnv,
): boolean {
  // a pager reads its keys from the terminal itself
  if (program === 'git')
    return (
      (pagerVariablePages('GIT_PAGER', args, pipes, start, () => gitFallbackPager(args, start)) &&
        gitPages(args)) ||
      gitEdits(args, start)
    );
  if (program === 'gh') return pagerVariablePages('GH_PAGER', args, pipes, start);
  if (program === 'man') return manPages(args, pipes, start);
  if (!pipes.stdin && !READS_TTY.test(program)) return false;
  if (program === 'mosh') return moshReadsTerminal(args, rule);
  if (program === 'sqlite3') return sqliteReadsTerminal(args);
  if (program === 'docker' || program === 'podman') return containerReadsTerminal(args, rule);
  if (program === 'docker-compose' || program === 'podman-compose') return composeReadsTerminal(args, rule);
  if (program === 'sftp') return sftpReadsTerminal(args);
  if (program === 'kubectl') return kubectlReadsTerminal(args, rule);
  const given = GIVEN.find(([name]) => name.test(program))?.[1];
  if (given === undefined) return false;
  if (program === 'psql' && psqlStdin(args)) return true;
  if (/^(?:less|more|most)$/.test(program) && (pipes.pipedOn || args.some((word) => word.startsWith('>'))))
    return false;
  if (/vi/.test(program) && vimQuits(args)) return false;
  return !args.some((word) => given.test(word));
}
