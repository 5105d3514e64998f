import type { InitSpendFlags } from './initSpend.js';

/** The options of `loopguard init` (and of `loopguard uninstall`, which runs it with `remove`). */
export interface InitOptions extends InitSpendFlags {
  /**
   * With `remove`: a settings file holding no loopguard hook, or not there, is handed to this (as
   * shown, and whether it exists) instead of said: `uninstall` says all it looked at in one line.
   * @default said, one line for a file that holds none
   */
  untouched?: (file: string, exists: boolean) => void;
  /**
   * The folder the files named in the output are shown relative to (those outside it: in full);
   * `uninstall` gives the user's own, as it works in every project. @default the project (`io.cwd`)
   */
  shownFrom?: string;
  /** `--user`: the user's settings file instead of the project's. @default false */
  user?: boolean;
  /** `--project`: the project's settings file, in the current directory (what happens anyway). @default false */
  project?: boolean;
  /** `--dry-run`: print the change as a diff and write nothing. @default false */
  dryRun?: boolean;
  /** `--remove`: take loopguard's hooks out again. @default false */
  remove?: boolean;
  /** `--command`: the command that runs loopguard. @default this node and this loopguard ({@link loopguardArgv}) */
  command?: string;
  /** `--timeout`: how long, in seconds, the CLI lets one hook call run. @default '10' ({@link DEFAULT_HOOK_TIMEOUT_SECONDS}) */
  timeout: string;
  /** `--command-hooks`: Claude Code runs a loopguard process per hook call, not the MCP server. @default false */
  commandHooks?: boolean;
  /** `--replace`: also take out loopguard hooks init did not mark here and those of the other scope. @default false */
  replace?: boolean;
  /**
   * `--status-line`: set Claude Code's `statusLine` to `loopguard statusline` (a user's own is kept
   * unless `replace`). @default false
   */
  statusLine?: boolean;
}
